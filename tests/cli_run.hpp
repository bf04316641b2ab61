// Runs the real `rbdref` command (RBDREF_CLI) for the end-to-end tests: no shell (the arguments
// are passed as given, so file names and empty strings need no quoting), stdout and stderr
// captured through files in a folder of the caller's choosing (never the folder under test), and
// the way the process ended reported exactly: an exit status, or the signal that killed it.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace rbd::test {

struct CliRun {
  int status = -1;  // exit status when the process exited
  int signal = 0;   // the signal that ended it, 0 when it exited
  std::string out, err;
  std::string describe() const {
    return signal ? "killed by signal " + std::to_string(signal) : "exit status " + std::to_string(status);
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `rbdref ARGS...`; stdout and stderr go to capture_dir/stdout.txt and stderr.txt.
inline CliRun run_rbdref(const std::vector<std::string>& args, const std::string& capture_dir) {
  const std::string out = capture_dir + "/stdout.txt", err = capture_dir + "/stderr.txt";
  std::vector<std::string> argv_s{RBDREF_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  CliRun r;
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) ::_exit(127);
    ::dup2(fo, 1);
    ::dup2(fe, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (pid < 0) return r;
  int st = 0;
  if (::waitpid(pid, &st, 0) != pid) return r;
  if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) r.signal = WTERMSIG(st);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace rbd::test
