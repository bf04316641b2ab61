// Multi-file outputs through a staging folder beside their folder, swapped in whole (staging.hpp).
#include "io/staging.hpp"

#include "io/cleanup.hpp"
#include "io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

namespace rbd {

namespace fs = std::filesystem;

const char* const kOutputMarker = ".rbdref-output";

namespace {

// Whether rbdref may replace the existing folder `root` as a whole; the reason when not.
std::string why_not_replaceable(const std::string& root) {
  std::error_code ec;
  if (fs::exists(fs::path(root) / kOutputMarker, ec)) return "";
  // Written before the marker existed: an audit's folder, a hunt's reproducer.
  if (fs::is_regular_file(fs::path(root) / "audit.json", ec)) return "";
  if (std::ifstream readme(fs::path(root) / "README.md"); readme) {
    std::string first;
    std::getline(readme, first);
    if (first.rfind("# rbdref hunt", 0) == 0) return "";
  }
  fs::directory_iterator it(root, ec);
  if (ec) return "cannot list it (" + ec.message() + ")";
  if (it == fs::directory_iterator()) return "";  // empty
  return "it holds '" + it->path().filename().string() +
         "' and is not an earlier output of rbdref; the output replaces its folder as a whole, so give a new or empty "
         "folder (or an earlier output of rbdref)";
}

// Exchanges the two names atomically; false when the file system cannot (then nothing changed).
bool exchange(const std::string& a, const std::string& b) {
#ifdef RENAME_EXCHANGE
  return ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0;
#else
  (void)a, (void)b;
  errno = EINVAL;
  return false;
#endif
}

void remove_quietly(const std::string& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

// An abandoned result: its stage removed (swap_into_place already removed it on failure) and the
// folders made on the way removed when empty, innermost first; none of them registered any more.
void abandon(const std::string& stage, const std::vector<std::string>& made) {
  remove_quietly(stage);
  forget_temporary(stage);
  for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());  // only when empty
  for (const std::string& m : made) forget_made_folder(m);
}

// Puts the finished `stage` in `root`'s place (staging.hpp); InputError naming root on failure,
// with root as it was (old or absent) and the stage removed.
void swap_into_place(const std::string& stage, const std::string& root) {
  struct stat st;
  if (::lstat(root.c_str(), &st) != 0) {
    if (std::rename(stage.c_str(), root.c_str()) == 0) return;
  } else if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
  } else if (exchange(stage, root)) {
    remove_quietly(stage);  // the old folder, under the stage's name (a dead run's is removed later)
    return;
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // No exchange here: the old folder aside (under the stage's name with ".old"), then the new in.
    const std::string old = stage + ".old";
    register_temporary(old);
    if (std::rename(root.c_str(), old.c_str()) == 0) {
      if (std::rename(stage.c_str(), root.c_str()) == 0) {
        remove_quietly(old);
        forget_temporary(old);
        return;
      }
      const int e = errno;
      std::rename(old.c_str(), root.c_str());  // the old folder back
      errno = e;
    }
    forget_temporary(old);
  }
  const std::string why = std::strerror(errno);
  remove_quietly(stage);
  throw InputError(root, "", "cannot move the finished output into place (" + why + ")");
}

}  // namespace

StagedFolder::StagedFolder(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  // The folder is replaced by another: never the current folder or one it is in, nor "/".
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(root_, ec), ec);
  const fs::path cwd = fs::current_path(ec);
  if (root_.empty() || abs == abs.root_path() ||
      (!cwd.empty() && std::mismatch(abs.begin(), abs.end(), cwd.begin(), cwd.end()).first == abs.end()))
    throw InputError(root_.empty() ? "." : root_, "",
                     "expected a folder name for the output (it is replaced as a whole), not the current folder, one it is in, or /");
  struct stat st;
  if (::lstat(root_.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw InputError(root_, "", S_ISLNK(st.st_mode) ? "is a symbolic link; the output goes to a folder rbdref makes or replaces"
                                                       : "is not a folder; the output goes there");
    if (const std::string why = why_not_replaceable(root_); !why.empty()) throw InputError(root_, "", "not replaced: " + why);
  }
  const std::string parent = abs.parent_path().string(), name = abs.filename().string();
  // The folders on the way that do not exist yet, outermost first: made now, removed if empty
  // when the result is abandoned.
  std::vector<std::string> missing;
  for (fs::path p = parent; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (::stat(p.c_str(), &st) == 0) break;
    missing.insert(missing.begin(), p.string());
  }
  for (const std::string& m : missing) register_made_folder(m);
  try {
    make_dir(parent);
  } catch (...) {
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) ::rmdir(it->c_str()), forget_made_folder(*it);
    throw;
  }
  made_ = missing;
  const std::string prefix = "." + name + ".rbdref-stage.";
  remove_stale_temporaries(parent, prefix);
  stage_ = parent + "/" + prefix + std::to_string(::getpid());
  remove_quietly(stage_);  // a leftover of this very PID (reused) is stale as well
  remove_quietly(stage_ + ".old");
  register_temporary(stage_);
  if (::mkdir(stage_.c_str(), 0755) != 0) {
    forget_temporary(stage_);
    const std::string why = std::strerror(errno);
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) ::rmdir(it->c_str()), forget_made_folder(*it);
    throw InputError(root_, "", "cannot make the staging folder " + stage_ + " beside it (" + why + ")");
  }
  OutputCommit::add_staging_folder(stage_);
}

StagedFolder::~StagedFolder() {
  OutputCommit::remove_staging_folder(stage_);
  if (!handed_over_) abandon(stage_, made_);
}

std::string StagedFolder::path(const std::string& final_path) const {
  if (final_path.size() > root_.size() && final_path.compare(0, root_.size(), root_) == 0 && final_path[root_.size()] == '/')
    return stage_ + final_path.substr(root_.size());
  return final_path;
}

std::string StagedFolder::make_folder(const std::string& final_folder) const {
  const std::string p = path(final_folder);
  make_dir(p);
  return p;
}

void StagedFolder::commit(When when) {
  write_file_atomic(stage_ + "/" + kOutputMarker, "written by rbdref; this folder is replaced as a whole by the next run\n");
  // The folder as it stands must still be one rbdref may replace (it was when the run began).
  struct stat st;
  if (::lstat(root_.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw InputError(root_, "", "is not a folder any more; the output goes there");
    if (const std::string why = why_not_replaceable(root_); !why.empty()) throw InputError(root_, "", "not replaced: " + why);
  }
  OutputCommit::remove_staging_folder(stage_);
  const std::string stage = stage_, root = root_;
  const std::vector<std::string> made = made_;
  auto move = [stage, root, made] {
    swap_into_place(stage, root);
    forget_temporary(stage);
    for (const std::string& m : made) forget_made_folder(m);
  };
  handed_over_ = true;
  if (when == When::WithTheCommand && OutputCommit::defers(root_)) {
    OutputCommit::defer(root_, move, [stage, made] { abandon(stage, made); });
    return;
  }
  try {
    move();
  } catch (...) {
    abandon(stage, made);
    throw;
  }
}

}  // namespace rbd
