// Multi-file outputs through a staging folder (staging.hpp).
#include "io/staging.hpp"

#include "io/cleanup.hpp"
#include "io/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace rbd {

namespace fs = std::filesystem;

StagedFolder::StagedFolder(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  // The folders on the way that do not exist yet, outermost first: made now, removed if empty
  // when the result is abandoned.
  std::vector<std::string> missing;
  for (std::string p = root_; !p.empty() && p != "/" && p != "."; p = fs::path(p).parent_path().string()) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) break;
    missing.insert(missing.begin(), p);
  }
  for (const std::string& m : missing) register_made_folder(m);
  make_dir(root_);
  made_ = missing;
  remove_stale_temporaries(root_, ".rbdref-stage.");
  stage_ = root_ + "/.rbdref-stage." + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(stage_, ec);  // a leftover of this very PID (reused) is stale as well
  register_temporary(stage_);
  if (::mkdir(stage_.c_str(), 0755) != 0) {
    forget_temporary(stage_);
    const std::string why = std::strerror(errno);
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) ::rmdir(it->c_str()), forget_made_folder(*it);
    throw InputError(root_, "", "cannot make the staging folder " + stage_ + " (" + why + ")");
  }
}

StagedFolder::~StagedFolder() {
  std::error_code ec;
  fs::remove_all(stage_, ec);
  forget_temporary(stage_);
  if (!committed_)
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) ::rmdir(it->c_str());  // only when empty
  for (const std::string& m : made_) forget_made_folder(m);
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

void StagedFolder::commit() {
  std::vector<std::pair<std::string, std::string>> moves;  // stage file -> final path
  for (auto it = fs::recursive_directory_iterator(stage_); it != fs::recursive_directory_iterator(); ++it)
    if (it->is_regular_file()) {
      const std::string rel = fs::relative(it->path(), stage_).string();
      moves.emplace_back(it->path().string(), root_ + "/" + rel);
    }
  // Every final path first: nothing is replaced unless everything can be.
  for (const auto& [from, to] : moves) {
    const std::string dir = fs::path(to).parent_path().string();
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) throw InputError(dir, "", "is not a folder; the output goes there");
    if (::lstat(to.c_str(), &st) == 0) check_output_path(to);
  }
  for (const auto& [from, to] : moves) {
    make_dir(fs::path(to).parent_path().string());
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw InputError(to, "", std::string("cannot move the finished output into place (") + std::strerror(errno) + ")");
  }
  committed_ = true;
}

}  // namespace rbd
