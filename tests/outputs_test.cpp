// Outputs that leave nothing behind and break nothing (io/cleanup.hpp, io/staging.hpp,
// io/xml_escape.hpp), with the real command:
//   - a run interrupted by SIGINT or SIGTERM once its work has started (its temporary or staging
//     folder exists: an interruption in the first milliseconds would test nothing) ends by that
//     signal and leaves no temporary, no staging folder and no folder it made;
//   - the temporaries and staging folders of dead runs are removed by the next run that writes
//     there; those of a live process are not;
//   - a staged multi-file result replaces its folder whole: killed (SIGKILL, SIGINT) at any of its
//     renames, the folder is the old one or the new one, never a mix; a folder of someone else's
//     files is not replaced;
//   - names that are markup or shell in every format: the audit runs MuJoCo on them, and its JUnit
//     and HTML hold them escaped, read back by an XML parser.
#include "io/files.hpp"
#include "io/staging.hpp"
#include "tests/cli_run.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tinyxml2.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

class Outputs : public CliFolderTest {
 public:
  std::string folder() const { return dir_.string(); }

 protected:
  static std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

  // Every entry under dir_ other than the captured stdout.txt and stderr.txt.
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      const std::string rel = fs::relative(e.path(), dir_).string();
      if (rel != "stdout.txt" && rel != "stderr.txt") v.push_back(rel);
    }
    return v;
  }
  // Waits (at most 120 s) until an entry whose relative path starts with `prefix` exists.
  bool wait_for(const std::string& prefix, pid_t pid) const {
    for (int i = 0; i < 12000; ++i) {
      for (const std::string& e : entries())
        if (e.rfind(prefix, 0) == 0) return true;
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) return false;  // it ended before its work showed
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "  " + x + "\n";
  return s;
}

TEST_F(Outputs, InterruptedFixtureLeavesNoTemporary) {
  for (int sig : {SIGINT, SIGTERM}) {
    const pid_t pid = start_rbdref({"fixture", src("fixtures/models/humanoid.urdf"), "--floating-base", "--samples", "20000", "--out",
                                    path("f.json")},
                                   dir_.string(), "", StdoutTo::Capture, 600);
    ASSERT_TRUE(wait_for("f.json.tmp.", pid)) << "the fixture's temporary never appeared:\n" << joined(entries());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // samples being written
    ::kill(pid, sig);
    const CliRun r = wait_rbdref(pid, dir_.string());
    EXPECT_EQ(r.signal, sig) << r.describe() << "\n" << r.err;
    EXPECT_TRUE(entries().empty()) << "left behind after signal " << sig << ":\n" << joined(entries());
  }
}

TEST_F(Outputs, InterruptedAuditLeavesNothingBehind) {
  // The fixture of 400 humanoid samples is made in the stage, under folders the audit makes.
  const pid_t pid = start_rbdref({"audit", "--model", src("fixtures/models/humanoid.urdf"), "--floating-base", "--samples", "400",
                                  "--no-cache", "--no-baseline", "--out", path("a/b")},
                                 dir_.string(), "", StdoutTo::Capture, 600);
  ASSERT_TRUE(wait_for("a/.b.rbdref-stage.", pid)) << joined(entries());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  const CliRun r = wait_rbdref(pid, dir_.string());
  EXPECT_EQ(r.signal, SIGTERM) << r.describe() << "\n" << r.err;
  EXPECT_TRUE(entries().empty()) << joined(entries());
}

TEST_F(Outputs, StaleTemporariesOfDeadRunsAreRemovedByTheNextRun) {
  // A process id that is certainly dead: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  // Alive: the process that started this test (this process's own id is the stage's name here).
  const std::string alive = std::to_string(::getppid());
  write("m.json.tmp." + std::to_string(dead), "half a model");
  write("m.json.tmp." + alive, "another run's, still writing");
  fs::create_directories(path(".out.rbdref-stage." + std::to_string(dead) + "/mujoco"));
  write(".out.rbdref-stage." + std::to_string(dead) + "/mujoco/x.json", "{}");
  fs::create_directories(path(".out.rbdref-stage." + alive));

  CliRun r = run("convert " + src("fixtures/models/double_pendulum.urdf") + " --out " + path("m.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(path("m.json.tmp." + std::to_string(dead))));
  EXPECT_TRUE(fs::exists(path("m.json.tmp." + alive)));

  {  // A staged folder on out/ removes the dead run's stage, not the live one's.
    StagedFolder stage(path("out"));
    write_file_atomic(stage.path(path("out/r.json")), "{}\n");
    stage.commit();
  }
  EXPECT_FALSE(fs::exists(path(".out.rbdref-stage." + std::to_string(dead))));
  EXPECT_TRUE(fs::exists(path(".out.rbdref-stage." + alive)));
  EXPECT_TRUE(fs::exists(path("out/r.json")));
}

TEST_F(Outputs, StagedFolderReplacesItsFolderWhole) {
  {  // Committed: every file in place, folders made, the stage gone, the folder marked as rbdref's.
    StagedFolder stage(path("res"));
    write_file_atomic(stage.path(path("res/a.json")), "a1\n");
    make_dir(stage.path(path("res/sub")));
    write_file_atomic(stage.path(path("res/sub/b.json")), "b1\n");
    EXPECT_FALSE(fs::exists(path("res"))) << "not before the commit";
    stage.commit();
  }
  EXPECT_EQ(slurp(path("res/a.json")), "a1\n");
  EXPECT_EQ(slurp(path("res/sub/b.json")), "b1\n");
  EXPECT_TRUE(fs::exists(path(std::string("res/") + kOutputMarker)));
  EXPECT_EQ(entries().size(), 5u) << joined(entries());  // res, its marker, a.json, sub, sub/b.json

  {  // Replaced: what the new result does not have is gone (the folder is swapped, not merged into).
    StagedFolder stage(path("res"));
    write_file_atomic(stage.path(path("res/a.json")), "a2\n");
    stage.commit();
  }
  EXPECT_EQ(slurp(path("res/a.json")), "a2\n");
  EXPECT_FALSE(fs::exists(path("res/sub"))) << joined(entries());
  EXPECT_EQ(entries().size(), 3u) << joined(entries());

  // A folder of someone else's files is refused before anything is written, and kept.
  fs::create_directories(path("mine"));
  write("mine/notes.txt", "keep\n");
  EXPECT_THROW(StagedFolder stage(path("mine")), InputError);
  EXPECT_EQ(slurp(path("mine/notes.txt")), "keep\n");
  // So are the current folder and "/".
  EXPECT_THROW(StagedFolder stage("."), InputError);
  EXPECT_THROW(StagedFolder stage("/"), InputError);

  // Abandoned (an error on the way): the stage and the folders it made are gone.
  try {
    StagedFolder stage(path("new/deeper"));
    write_file_atomic(stage.path(path("new/deeper/x.json")), "x\n");
    throw InputError("x", "", "an error on the way");
  } catch (const InputError&) {
  }
  EXPECT_FALSE(fs::exists(path("new"))) << joined(entries());

  // With an OutputCommit open, the swap waits for its commit; without one, nothing appears.
  {
    OutputCommit outputs;
    {
      StagedFolder stage(path("later"));
      write_file_atomic(stage.path(path("later/x.json")), "x\n");
      write_file_atomic(path("single.json"), "s\n");
      stage.commit();
    }
    EXPECT_FALSE(fs::exists(path("later")));
    EXPECT_FALSE(fs::exists(path("single.json")));
    outputs.commit();
  }
  EXPECT_EQ(slurp(path("later/x.json")), "x\n");
  EXPECT_EQ(slurp(path("single.json")), "s\n");
  {
    OutputCommit outputs;
    StagedFolder stage(path("never"));
    write_file_atomic(stage.path(path("never/x.json")), "x\n");
    write_file_atomic(path("single.json"), "s2\n");
    stage.commit();
  }  // no commit: both discarded
  EXPECT_FALSE(fs::exists(path("never")));
  EXPECT_EQ(slurp(path("single.json")), "s\n");
  for (const std::string& e : entries()) EXPECT_EQ(e.find(".tmp."), std::string::npos) << e;
  for (const std::string& e : entries()) EXPECT_EQ(e.find("rbdref-stage"), std::string::npos) << e;
}

// An audit over an earlier audit's folder, killed at each of its renames (strace's fault injection
// delivers SIGKILL, or SIGINT, as the process enters its Nth rename): the folder is the old one,
// byte for byte, or the new one, whole (the old run took 2 samples, the new 3: every file that
// tells the two runs apart is the new run's). It used to be replaced file by file: a kill while the
// files moved in left 1-15 of 23 new and the rest old, with the old audit.json presenting it as
// complete.
TEST_F(Outputs, AuditFolderKilledAtAnyRenameIsTheOldOrTheNewWhole) {
  auto audit = [&](const std::string& out, int samples) {
    return std::vector<std::string>{"audit", "--model", src("fixtures/models/double_pendulum.urdf"), "--engines", "mujoco", "--samples",
                                    std::to_string(samples), "--no-cache", "--no-baseline", "--out", out};
  };
  using Snap = std::map<std::string, std::string>;
  auto snap = [&](const std::string& folder) {
    Snap s;
    for (const auto& e : fs::recursive_directory_iterator(path(folder)))
      if (e.is_regular_file()) s[fs::relative(e.path(), path(folder)).string()] = slurp(e.path().string());
    return s;
  };
  // Runs `rbdref ARGS` under strace; inject "": counts its renames (returned); else "N:SIG".
  auto traced = [&](const std::vector<std::string>& args, const std::string& inject) {
    std::vector<std::string> strace{"strace", "-f", "-qq", "-o", path("trace.txt"), "-e", "trace=rename,renameat,renameat2"};
    if (!inject.empty()) {
      const size_t colon = inject.find(':');
      strace.insert(strace.end(), {"-e", "inject=rename,renameat,renameat2:signal=" + inject.substr(colon + 1) + ":when=" +
                                             inject.substr(0, colon)});
    }
    const CliRun r = run_rbdref(args, dir_.string(), "", StdoutTo::Capture, 300, {}, strace);
    // strace ends as its tracee did (by the injected signal, re-raised); 127: it did not run.
    EXPECT_NE(r.status, 127) << "strace did not run (setup.sh installs it)";
    std::ifstream t(path("trace.txt"));
    int renames = 0;
    for (std::string line; std::getline(t, line);)
      if (line.find("rename") != std::string::npos && line.find("resumed") == std::string::npos) ++renames;
    fs::remove(path("trace.txt"));
    return renames;
  };
  const CliRun first = run_rbdref(audit(path("out"), 2), dir_.string());
  ASSERT_EQ(first.status, 0) << first.err;
  const Snap old = snap("out");
  auto restore_old = [&] {
    fs::remove_all(path("out"));
    fs::create_directories(path("out"));
    for (const auto& [name, content] : old) {
      fs::create_directories(fs::path(path("out/" + name)).parent_path());
      write("out/" + name, content);
    }
  };
  // The new result, uninterrupted, over the old one: its files and its renames.
  const int renames = traced(audit(path("out"), 3), "");
  ASSERT_GT(renames, 5);
  const Snap fresh = snap("out");
  ASSERT_TRUE(fresh.count("audit.json"));
  ASSERT_NE(fresh, old);
  restore_old();
  // Killed at every rename, and interrupted at the last two (the swap): the folder is whole.
  std::vector<std::string> injections;
  for (int n = 1; n <= renames + 1; ++n) injections.push_back(std::to_string(n) + ":KILL");
  for (int n : {renames - 1, renames}) injections.push_back(std::to_string(n) + ":INT");
  int saw_new = 0;
  for (const std::string& inj : injections) {
    traced(audit(path("out"), 3), inj);
    const Snap now = snap("out");
    if (now == old) continue;
    ++saw_new;
    ASSERT_EQ(now.size(), fresh.size()) << "killed at rename " << inj << ": a mix of two runs";
    int telling = 0;
    for (const auto& [name, content] : now) {
      ASSERT_TRUE(fresh.count(name)) << inj << ": " << name << " is no new output";
      if (old.count(name) && old.at(name) == fresh.at(name)) continue;  // the same in both runs: tells nothing
      ++telling;
      EXPECT_NE(content, old.count(name) ? old.at(name) : "") << inj << ": " << name << " is the old run's: a mix of two runs";
    }
    EXPECT_GE(telling, 3) << inj;
    restore_old();  // for the next kill
  }
  EXPECT_GE(saw_new, 1) << "no kill landed after the swap: the test saw only the old folder";
  // What the kills left beside it (stages of dead runs) is removed by the next run.
  ASSERT_EQ(run_rbdref(audit(path("out"), 2), dir_.string()).status, 0);
  for (const std::string& e : entries())
    EXPECT_EQ(e.find("rbdref-stage"), std::string::npos) << "left behind: " << e;
}

// Names holding " ' < > & ; $( ) ` , newlines and non-ASCII (valid in URDF and JSON): the engine
// loads the MJCF rbdref writes for it (the run passes, its model echo matches), and the JUnit and
// HTML reports hold them escaped (a double quote in a name used to break MuJoCo's parse, and
// MuJoCo-js with "memory access out of bounds").
void expect_markup_names_audited(const Outputs& t, const std::string& engine) {
  const std::string model = std::string(::rbd::test::kSourceDir) + "/tests/data/malformed/accepted/markup_names.urdf";
  const std::string out = t.folder() + "/" + engine;
  const CliRun r = run_rbdref(words("audit --model " + model + " --engines " + engine + " --samples 2 --no-cache --out " + out), t.folder());
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const std::string robot = "arm \"q\" <b> & $(id)";
  tinyxml2::XMLDocument junit;
  ASSERT_EQ(junit.LoadFile((out + "/junit.xml").c_str()), tinyxml2::XML_SUCCESS) << junit.ErrorStr();
  bool named = false;
  for (const tinyxml2::XMLElement* s = junit.RootElement()->FirstChildElement("testsuite"); s; s = s->NextSiblingElement("testsuite"))
    named = named || std::string(s->Attribute("name") ? s->Attribute("name") : "").find(robot) != std::string::npos;
  EXPECT_TRUE(named) << slurp(out + "/junit.xml").substr(0, 2000);
  const std::string html = slurp(out + "/report.html");
  for (const char* raw : {"up<per>", "</failure>", "<b> &"}) EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  const std::string report = slurp(out + "/" + engine + "/markup_names.report.json");
  EXPECT_NE(report.find("\"status\": \"match\""), std::string::npos) << report.substr(0, 3000);
}

#ifdef RBDREF_HAVE_MUJOCO
TEST_F(Outputs, MarkupInNamesBreaksNeitherMujocoNorTheReports) { expect_markup_names_audited(*this, "mujoco"); }
#endif
#ifdef RBDREF_HAVE_MUJOCO_JS
TEST_F(Outputs, MarkupInNamesBreaksNeitherMujocoJsNorTheReports) { expect_markup_names_audited(*this, "mujoco-js"); }
#endif

}  // namespace
}  // namespace rbd::test
