// Runs the real `rbdref` command (::rbd::test::kRbdrefCli) for the end-to-end tests: no shell (the arguments
// are passed as given, so file names and empty strings need no quoting), stdout and stderr
// captured through files in a folder of the caller's choosing (never the folder under test), and
// the way the process ended reported exactly: an exit status, or the signal that killed it. A
// test fixture gives each test a folder of its own for the files it writes and the output of the
// commands it runs.
#pragma once

#include <fcntl.h>
#include "tests/test_paths.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
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

// `rbdref ARGS...`; stdout and stderr go to capture_dir/stdout.txt and stderr.txt; the command
// runs in `cwd` when one is given (the caller's working directory otherwise).
// Where the command's standard output goes: captured, /dev/full (every write fails with ENOSPC),
// or a closed descriptor (EBADF).
enum class StdoutTo { Capture, DevFull, Closed };

// timeout_s > 0: the command is killed by SIGALRM after that many seconds (a hang becomes a signal
// the test reports, not a suite that never ends). env: variables set for the command alone.
// wrapper: a command that runs rbdref (`strace -f …`), found on PATH: its words, then rbdref and ARGS
// (status 127: it could not be run).
// start_rbdref starts the command and returns its process id (or -1) without waiting;
// wait_rbdref waits for it and reads what it wrote. run_rbdref is the two in a row.
inline pid_t start_rbdref(const std::vector<std::string>& args, const std::string& capture_dir, const std::string& cwd = "",
                          StdoutTo to = StdoutTo::Capture, unsigned timeout_s = 0,
                          const std::vector<std::pair<std::string, std::string>>& env = {},
                          const std::vector<std::string>& wrapper = {}) {
  const std::string out = capture_dir + "/stdout.txt", err = capture_dir + "/stderr.txt";
  std::vector<std::string> argv_s = wrapper;
  argv_s.push_back(::rbd::test::kRbdrefCli);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fo = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int fe = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) ::_exit(127);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    if (to == StdoutTo::DevFull) {
      const int full = ::open("/dev/full", O_WRONLY);
      if (full < 0) ::_exit(127);
      ::dup2(full, 1);
    } else if (to == StdoutTo::Closed) {
      ::close(1);
    } else {
      ::dup2(fo, 1);
    }
    ::dup2(fe, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    if (timeout_s > 0) ::alarm(timeout_s);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

inline CliRun wait_rbdref(pid_t pid, const std::string& capture_dir) {
  const std::string out = capture_dir + "/stdout.txt", err = capture_dir + "/stderr.txt";
  CliRun r;
  if (pid < 0) return r;
  int st = 0;
  if (::waitpid(pid, &st, 0) != pid) return r;
  if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) r.signal = WTERMSIG(st);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline CliRun run_rbdref(const std::vector<std::string>& args, const std::string& capture_dir, const std::string& cwd = "",
                         StdoutTo to = StdoutTo::Capture, unsigned timeout_s = 0,
                         const std::vector<std::pair<std::string, std::string>>& env = {},
                         const std::vector<std::string>& wrapper = {}) {
  return wait_rbdref(start_rbdref(args, capture_dir, cwd, to, timeout_s, env, wrapper), capture_dir);
}

// The words of a command line split at blanks (no quoting: the command lines of these tests hold
// no argument with a blank in it).
inline std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A folder of the test's own, temp/rbdref_SUITE_PID_TEST, made empty before the test and removed
// after it. A parameterized test's names hold '/' ("Urdf/Corpus", "Loads/3"), which would make the
// folder one inside another that remove_all leaves behind, empty: they are written with '_'.
// Base: ::testing::Test, or ::testing::TestWithParam<P> for a parameterized suite.
template <class Base>
class TestFolder : public Base {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("rbdref_") + t->test_suite_name() + "_" + std::to_string(::getpid()) + "_" + t->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `rbdref ARGS`, its standard output and error captured in capture/ below the folder, apart from
  // the files the command writes.
  CliRun run_captured(const std::vector<std::string>& args) const {
    const std::filesystem::path capture = dir_ / "capture";
    std::filesystem::create_directories(capture);
    return run_rbdref(args, capture.string());
  }

  std::filesystem::path dir_;
};

// The test's folder holds the files the test writes and the captured output (stdout.txt,
// stderr.txt) of the commands it runs.
class CliFolderTest : public TestFolder<::testing::Test> {
 protected:

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }
  // `rbdref LINE` (LINE's words as the arguments), run in `cwd` when given.
  CliRun run(const std::string& line, const std::string& cwd = "") const { return run_rbdref(words(line), dir_.string(), cwd); }

  // A run refused as bad input: exit status 2, the message naming `file` and `field`, and no
  // temporary file (NAME.tmp.*) left in the folder.
  void expect_bad_input(const CliRun& r, const std::string& file, const std::string& field) const {
    EXPECT_EQ(r.status, 2) << r.describe() << "\n" << r.err << r.out;
    EXPECT_NE(r.err.find(file), std::string::npos) << "message does not name the file: " << r.err;
    EXPECT_NE(r.err.find(field), std::string::npos) << "message does not name '" << field << "': " << r.err;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "temporary left: " << e.path();
  }
};

}  // namespace rbd::test
