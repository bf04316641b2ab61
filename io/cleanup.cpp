// Temporaries removed on interruption, and stale ones of dead processes (cleanup.hpp).
#include "io/cleanup.hpp"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace rbd {

namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& registry() {
  static std::set<std::string> r;
  return r;
}
std::vector<std::string>& made_folders() {  // in the order made: removed innermost (last) first
  static std::vector<std::string> r;
  return r;
}

sigset_t cleanup_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  return s;
}

void remove_all_quietly(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

[[noreturn]] void on_signal(int sig) {
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    // Twice: a worker still writing may have made a file in a staging folder after the first pass.
    for (int pass = 0; pass < 2; ++pass)
      for (const std::string& p : registry()) remove_all_quietly(p);
    registry().clear();
    for (auto it = made_folders().rbegin(); it != made_folders().rend(); ++it) ::rmdir(it->c_str());  // only if empty
  }
  std::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::kill(::getpid(), sig);  // the whole process, by its default action
  ::_exit(128 + sig);       // not reached
}

}  // namespace

void install_interrupt_cleanup() {
  const sigset_t s = cleanup_signals();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);  // inherited by every thread started from here on
  std::thread([s] {
    for (;;) {
      int sig = 0;
      if (sigwait(&s, &sig) == 0) on_signal(sig);
    }
  }).detach();
}

void register_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().insert(path);
}

void forget_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(path);
}

void register_made_folder(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  made_folders().push_back(path);
}

void forget_made_folder(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& v = made_folders();
  for (auto it = v.begin(); it != v.end(); ++it)
    if (*it == path) {
      v.erase(it);
      break;
    }
}

void remove_stale_temporaries(const std::string& folder, const std::string& prefix) {
  DIR* d = ::opendir(folder.empty() ? "." : folder.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    stale.push_back((folder.empty() ? std::string(".") : folder) + "/" + name);
  }
  ::closedir(d);
  for (const std::string& p : stale) remove_all_quietly(p);
}

sigset_t unblocked_signal_mask() {
  sigset_t s;
  pthread_sigmask(SIG_SETMASK, nullptr, &s);
  const sigset_t c = cleanup_signals();
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    if (sigismember(&c, sig)) sigdelset(&s, sig);
  return s;
}

}  // namespace rbd
