// Files: read_text_file, the atomic writer (a temporary file renamed into place, gzip through
// GzipStreambuf), and the output path checks.
#include "io/files.hpp"

#include "io/cleanup.hpp"

#include "io/gzip_streambuf.hpp"
#include "io/utf8.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace rbd {

namespace {

// A path's folder ("." for a bare name, "/" at the root) and its last name.
std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::size_t max_input_bytes(std::size_t kind_bound) {
  const char* env = std::getenv("RBDREF_MAX_INPUT_BYTES");
  if (!env || !*env) return kind_bound;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(env, &end, 10);
  if (errno != 0 || *end != '\0' || env[0] == '-' || v == 0)
    throw InputError("RBDREF_MAX_INPUT_BYTES", "", "expected a positive number of bytes, got '" + std::string(env) + "'");
  return static_cast<std::size_t>(v);
}

std::size_t check_input_file(const std::string& path, std::size_t kind_bound) {
  // Input file names are written into the JSON outputs (eval's model.file, a fixture's source).
  if (first_invalid_utf8(path) != std::string::npos)
    throw InputError(path, "", "expected a file name in UTF-8 (input file names are written into the JSON outputs); rename the file");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw InputError(path, "", "cannot open the file for reading (" + std::string(std::strerror(errno)) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "expected a file, got a folder");
  // A FIFO would block until a writer comes, a device (/dev/zero) never ends: inputs are regular
  // files, refused at once otherwise.
  if (!S_ISREG(st.st_mode))
    throw InputError(path, "", std::string("expected a regular file, got ") +
                                   (S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device"));
  const std::size_t limit = max_input_bytes(kind_bound);
  if (static_cast<unsigned long long>(st.st_size) > limit)
    throw InputError(path, "", "the file has " + std::to_string(st.st_size) + " bytes, more than the input limit of " +
                                   std::to_string(limit) + " (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
  return limit;
}

std::string read_text_file(const std::string& path, std::size_t kind_bound) {
  const std::size_t limit = check_input_file(path, kind_bound);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the file for reading");
  // Bounded by the limit as it is read too (a file that grows while it is read).
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit)
      throw InputError(path, "", "more than the input limit of " + std::to_string(limit) +
                                     " bytes (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
  }
  if (in.bad()) throw InputError(path, "", "read error");
  return text;
}

void check_output_name(const std::string& path) {
  if (path.empty()) throw InputError(path, "", "expected an output file name");
  if (path == "-") return;
  if (path.back() == '/') throw InputError(path, "", "expected a file name, got a folder path (it ends in '/')");
  const std::string name = name_of(path);
  // The temporary beside it (NAME.tmp.PID) must fit the file system's limit on a name too.
  constexpr size_t kNameMax = NAME_MAX, kTmpSuffix = 16;  // ".tmp." + up to 10 digits, and one to spare
  if (name.size() + kTmpSuffix > kNameMax)
    throw InputError(path, "", "the file name has " + std::to_string(name.size()) + " bytes; at most " +
                                   std::to_string(kNameMax - kTmpSuffix) + " fit (the file system allows " + std::to_string(kNameMax) +
                                   ", and rbdref writes through a temporary NAME.tmp.PID)");
  for (size_t b = 0, e; b < path.size(); b = e + 1) {  // every folder on the way too
    e = path.find('/', b);
    if (e == std::string::npos) break;
    if (e - b > kNameMax) throw InputError(path, "", "a folder name of " + std::to_string(e - b) + " bytes is longer than " +
                                                         std::to_string(kNameMax) + ", the file system's limit");
  }
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw InputError(path, "", "expected an output file name");
  if (path == "-") return;  // standard output
  check_output_name(path);
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      throw InputError(path, "", "is a symbolic link; outputs are written only to regular files (or '-' for standard output)");
    if (!S_ISREG(st.st_mode))
      throw InputError(path, "", std::string("is ") + (S_ISDIR(st.st_mode) ? "a folder" : "a device, FIFO or socket") +
                                     "; outputs are written only to regular files (or '-' for standard output)");
    // No write permission bit at all is read-only for everyone: access() alone would let root
    // (CI containers) replace a file its owner marked read-only.
    if (::access(path.c_str(), W_OK) != 0 || (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
      throw InputError(path, "", "the existing file is read-only; rbdref does not replace it");
  } else if (errno != ENOENT) {
    throw InputError(path, "", "cannot check the output path (" + std::string(std::strerror(errno)) + ")");
  }
  const std::string dir = folder_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(path, "", "the folder " + dir + " does not exist");
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&content](std::ostream& out) { out << content; });
}

void flush_stdout_or_throw() {
  errno = 0;
  std::cout.flush();
  const int e_cout = errno;
  errno = 0;
  const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (lost) {
    const int e = errno ? errno : e_cout;
    std::cout.clear();
    std::clearerr(stdout);
    throw InputError("standard output", "", std::string("write failed, the output is lost (") +
                                                (e ? std::strerror(e) : "closed or not writable") + ")");
  }
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write, bool gzip) {
  if (path == "-") {
    if (gzip) {
      io_detail::GzipStreambuf buf(std::cout, GzipLayout{});
      std::ostream zout(&buf);
      write(zout);
      if (!zout) throw InputError("standard output", "", "write error (while compressing)");
      buf.finish();
    } else {
      write(std::cout);
    }
    flush_stdout_or_throw();
    return;
  }
  check_output_path(path);
  remove_stale_temporaries(folder_of(path), name_of(path) + ".tmp.");
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  struct stat old;
  const bool replacing = ::stat(path.c_str(), &old) == 0;
  register_temporary(tmp);
  // Until it is renamed into place (or handed to the OutputCommit) the temporary is forgotten
  // only by being removed.
  struct Forget {
    const std::string& p;
    bool keep = false;
    ~Forget() {
      if (!keep) forget_temporary(p);
    }
  } forget{tmp};
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, "", "cannot create the temporary file " + tmp + " (is the folder writable?)");
    // A replaced file keeps its permissions (a private 0600 report stays private).
    if (replacing) ::chmod(tmp.c_str(), old.st_mode & 07777);
    try {
      if (gzip) {
        io_detail::GzipStreambuf buf(out, GzipLayout{});
        std::ostream zout(&buf);
        write(zout);
        // A failure inside the compressing stream buffer reaches `write` only as badbit on zout.
        if (!zout) throw InputError(path, "", "write error (while compressing)");
        buf.finish();
      } else {
        write(out);
      }
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw InputError(path, "", "write error");
    }
  }
  auto move = [tmp, path] {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(tmp.c_str());
      forget_temporary(tmp);
      throw InputError(path, "", "cannot rename the temporary file into place (" + why + ")");
    }
    forget_temporary(tmp);
  };
  if (OutputCommit::defers(path)) {
    forget.keep = true;
    OutputCommit::defer(path, move, [tmp] {
      std::remove(tmp.c_str());
      forget_temporary(tmp);
    });
    return;
  }
  forget.keep = true;  // move() forgets it
  move();
}

namespace {

struct Deferred {
  std::string key;
  std::function<void()> move, discard;
};
struct CommitState {
  std::mutex mu;
  bool open = false;
  std::vector<Deferred> pending;
  std::vector<std::string> stages;
};
CommitState& commit_state() {
  static CommitState s;
  return s;
}

}  // namespace

OutputCommit::OutputCommit() {
  CommitState& s = commit_state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.open) throw std::logic_error("OutputCommit: one is open already");
  s.open = true;
}

OutputCommit::~OutputCommit() {
  CommitState& s = commit_state();
  std::vector<Deferred> left;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    left.swap(s.pending);
    s.open = false;
  }
  for (auto it = left.rbegin(); it != left.rend(); ++it) {
    try {
      it->discard();
    } catch (...) {  // housekeeping: what is left carries the PID and the next run removes it
    }
  }
}

void OutputCommit::commit() {
  CommitState& s = commit_state();
  std::vector<Deferred> todo;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    todo.swap(s.pending);
  }
  // Moved in order; a failure (the machine's, every path was checked when it was written) leaves
  // the outputs not yet moved to the destructor, which removes them.
  for (size_t k = 0; k < todo.size(); ++k) {
    try {
      todo[k].move();
    } catch (...) {
      std::lock_guard<std::mutex> lock(s.mu);
      s.pending.assign(todo.begin() + static_cast<std::ptrdiff_t>(k) + 1, todo.end());
      throw;
    }
  }
}

bool OutputCommit::defers(const std::string& path) {
  CommitState& s = commit_state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.open) return false;
  for (const std::string& stage : s.stages)
    if (path.size() > stage.size() && path.compare(0, stage.size(), stage) == 0 && path[stage.size()] == '/') return false;
  return true;
}

void OutputCommit::defer(const std::string& key, std::function<void()> move, std::function<void()> discard) {
  CommitState& s = commit_state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (Deferred& d : s.pending)
    if (d.key == key) {  // the same temporary, written again: one move
      d.move = std::move(move);
      d.discard = std::move(discard);
      return;
    }
  s.pending.push_back({key, std::move(move), std::move(discard)});
}

void OutputCommit::add_staging_folder(const std::string& stage) {
  CommitState& s = commit_state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stages.push_back(stage);
}

void OutputCommit::remove_staging_folder(const std::string& stage) {
  CommitState& s = commit_state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stages.erase(std::remove(s.stages.begin(), s.stages.end(), stage), s.stages.end());
}

std::string canonical_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  // Not there yet: the real folder + the name.
  if (::realpath(folder_of(path).c_str(), buf)) return std::string(buf) + "/" + name_of(path);
  return path;
}

void check_distinct_paths(const std::vector<std::string>& inputs, const std::vector<std::pair<std::string, std::string>>& outputs) {
  std::map<std::string, std::string> seen;  // canonical path -> option that named it
  for (const std::string& in : inputs)
    if (!in.empty()) seen.emplace(canonical_path(in), "an input");
  std::string stdout_option;
  for (const auto& [option, path] : outputs) {
    if (path == "-") {
      if (!stdout_option.empty())
        throw InputError(option, "", "'-' (standard output) is also " + stdout_option + "'s; only one output can go there");
      stdout_option = option;
      continue;
    }
    if (path.empty()) continue;
    const std::string c = canonical_path(path);
    auto it = seen.find(c);
    if (it != seen.end())
      throw InputError(option, "", "'" + path + "' is also " + it->second + "; refusing to overwrite it (choose another file)");
    seen.emplace(c, option);
  }
}

void make_dir(const std::string& path) {
  for (size_t k = 1; k <= path.size(); ++k) {
    if (k < path.size() && path[k] != '/') continue;
    const std::string part = path.substr(0, k);
    struct stat st;
    if (::stat(part.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw InputError(path, "", "cannot create the output folder: " + part + " is not a folder");
      continue;
    }
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      throw InputError(path, "", "cannot create the output folder " + part + " (" + std::strerror(errno) + ")");
  }
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace rbd
