// The malformed-input corpus (tests/data/malformed, manifest.json; written by generate.py there):
// every case runs the real `rbdref` in a fresh scratch folder holding copies of its inputs, and
// must end with its exit status (2: bad input), never 3 (internal error) nor a signal, with a
// message that starts "rbdref: error: " and contains every listed part (file, field, what was
// expected), nothing on stdout, and the scratch folder exactly as it was: no file created,
// removed, modified or re-permissioned, no temporary left. The case's file is also fed to every
// other command that reads that kind of document (manifest "also"), with the same expectations.
// Accepted edge cases (a byte-order mark, a version-1 fixture, ...) must exit 0 and write their
// outputs. Every file of the corpus (but the generator, the manifest, README.md and support/) must
// be used by a case.
#include "tests/cli_run.hpp"
#include "tests/test_paths.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/io_util.hpp"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kCorpus = std::string(::rbd::test::kSourceDir) + "/tests/data/malformed";

const json& manifest() {
  static const json m = json::parse(slurp(kCorpus + "/manifest.json"));
  return m;
}

// Cases and accepted cases in one index space: [0, cases) then [cases, cases + accepted).
size_t n_cases() { return manifest()["cases"].size(); }
const json& case_at(size_t i) { return i < n_cases() ? manifest()["cases"][i] : manifest()["accepted"][i - n_cases()]; }

// Everything in a folder tree that a command could have changed: kind, permissions, size,
// modification time and content of every entry (symbolic links by their target).
using Snapshot = std::map<std::string, std::string>;
Snapshot snapshot(const fs::path& root) {
  Snapshot s;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) continue;
    std::string v = "mode " + std::to_string(st.st_mode) + " size " + std::to_string(st.st_size) + " mtime " +
                    std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    if (S_ISREG(st.st_mode)) v += " sha256 " + sha256_hex(slurp(p.string()));
    if (S_ISLNK(st.st_mode)) v += " -> " + fs::read_symlink(p).string();
    s[fs::relative(p, root).string()] = v;
  }
  return s;
}

std::string diff(const Snapshot& before, const Snapshot& after) {
  std::string d;
  for (const auto& [k, v] : after) {
    auto it = before.find(k);
    if (it == before.end()) d += "  created: " + k + "\n";
    else if (it->second != v) d += "  changed: " + k + " (" + it->second + " -> " + v + ")\n";
  }
  for (const auto& [k, v] : before)
    if (!after.count(k)) d += "  removed: " + k + "\n";
  return d;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

class Malformed : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("rbdref_malformed_" + std::to_string(::getpid()) + "_" + std::to_string(GetParam()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "capture");
  }
  void TearDown() override {
    // Read-only files and folders made by setups are removable by their owner.
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A fresh scratch folder with the support files, the case's file and its setup.
  fs::path prepare(const json& c, const std::string& tag) {
    const fs::path scratch = root_ / ("scratch_" + tag);
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    fs::copy(kCorpus + "/support", scratch / "support", fs::copy_options::recursive);
    if (c.contains("file")) fs::copy_file(kCorpus + "/" + c["file"].get<std::string>(), scratch / fs::path(c["file"].get<std::string>()).filename());
    for (const json& s : c.value("setup", json::array())) {
      const fs::path p = scratch / s["path"].get<std::string>();
      fs::create_directories(p.parent_path());
      if (s.value("dir", false)) fs::create_directories(p);
      else if (s.value("fifo", false)) ::mkfifo(p.c_str(), 0644);
      else if (s.contains("symlink")) fs::create_symlink(s["symlink"].get<std::string>(), p);
      else if (s.contains("from")) fs::copy_file(kCorpus + "/" + s["from"].get<std::string>(), p);
      else std::ofstream(p, std::ios::binary) << s["content"].get<std::string>();
      if (s.contains("mode")) fs::permissions(p, static_cast<fs::perms>(std::stoi(s["mode"].get<std::string>(), nullptr, 8)));
    }
    return scratch;
  }

  std::vector<std::string> substitute(const json& args, const json& c, const fs::path& scratch) const {
    std::vector<std::string> out;
    for (const json& a : args) {
      std::string s = a.get<std::string>();
      if (c.contains("file")) s = replace_all(s, "{file}", (scratch / fs::path(c["file"].get<std::string>()).filename()).string());
      s = replace_all(s, "{support}", (scratch / "support").string());
      s = replace_all(s, "{scratch}", scratch.string());
      out.push_back(s);
    }
    return out;
  }

  // The same file through another command that reads its kind of document.
  json also_args(const std::string& command, const json& c) const {
    json opts = c.value("options", json::array());
    auto with_opts = [&](std::vector<std::string> head, std::vector<std::string> tail) {
      json a = head;
      for (const json& o : opts) a.push_back(o);
      for (const std::string& t : tail) a.push_back(t);
      return a;
    };
    const std::string state = c["document"] == "urdf" ? "{support}/arm_state.json" : "{support}/state.json";
    if (command == "eval") return with_opts({"eval", "{file}"}, {"--state", state, "--out", "{scratch}/also.json"});
    if (command == "convert") return with_opts({"convert", "{file}"}, {"--out", "{scratch}/also.json"});
    if (command == "fixture") return with_opts({"fixture", "{file}"}, {"--samples", "2", "--out", "{scratch}/also.json"});
    if (command == "compare-fixture")
      return json{"compare", "{file}", "{support}/good.engine.json", "--report", "{scratch}/also.json"};
    if (command == "compare-engine")
      return json{"compare", "{support}/good.fixture.json", "{file}", "--report", "{scratch}/also.json"};
    if (command == "check") return json{"check", "{file}", "--report", "{scratch}/also.json"};
    ADD_FAILURE() << "unknown also-command " << command;
    return json::array();
  }

  std::string describe(const std::vector<std::string>& args) const {
    std::string s = "rbdref";
    for (const std::string& a : args) s += " '" + a + "'";
    return s;
  }

  // The command of a case: its standard output captured, or /dev/full, or closed ("stdout"), its
  // environment ("env"), and a hang turned into a failure (SIGALRM after 120 s).
  CliRun run(const json& c, const std::vector<std::string>& args) const {
    const std::string to = c.value("stdout", "capture");
    std::vector<std::pair<std::string, std::string>> env;
    const json vars = c.value("env", json::object());
    for (const auto& [k, v] : vars.items()) env.emplace_back(k, v.get<std::string>());
    return run_rbdref(args, (root_ / "capture").string(), "",
                      to == "full" ? StdoutTo::DevFull : to == "closed" ? StdoutTo::Closed : StdoutTo::Capture, 120, env);
  }

  // One run of a bad-input case: the status, the message, nothing written or changed.
  void expect_refused(const json& c, const json& args_template, const std::string& tag) {
    const fs::path scratch = prepare(c, tag);
    const std::vector<std::string> args = substitute(args_template, c, scratch);
    const Snapshot before = snapshot(scratch);
    const CliRun r = run(c, args);
    const std::string what = c["id"].get<std::string>() + ": " + describe(args);
    EXPECT_EQ(r.signal, 0) << what << ": " << r.describe() << "\n" << r.err;
    EXPECT_NE(r.status, 3) << what << ": internal error\n" << r.err;
    EXPECT_EQ(r.status, c["exit"].get<int>()) << what << ": " << r.describe() << "\n" << r.err;
    EXPECT_NE(r.err.find("rbdref: error: "), std::string::npos) << what << ": no 'rbdref: error: ' in\n" << r.err;
    for (const json& part : c["message"])
      EXPECT_NE(r.err.find(part.get<std::string>()), std::string::npos) << what << ": the message lacks [" << part.get<std::string>()
                                                                       << "]:\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << what << ": wrote to stdout:\n" << r.out.substr(0, 500);
    const std::string d = diff(before, snapshot(scratch));
    EXPECT_TRUE(d.empty()) << what << ": the scratch folder changed:\n" << d;
  }

  void expect_accepted(const json& c) {
    const fs::path scratch = prepare(c, "accepted");
    const std::vector<std::string> args = substitute(c["args"], c, scratch);
    const Snapshot before = snapshot(scratch);
    const CliRun r = run(c, args);
    const std::string what = c["id"].get<std::string>() + ": " + describe(args);
    EXPECT_EQ(r.signal, 0) << what << ": " << r.describe();
    EXPECT_EQ(r.status, 0) << what << ": " << r.describe() << "\n" << r.err;
    EXPECT_EQ(r.err.find("rbdref: error"), std::string::npos) << what << ": " << r.err;
    // The inputs are untouched; what is new is the expected outputs (and what is inside them).
    std::set<std::string> outputs;
    for (const json& o : c.value("outputs", json::array())) {
      outputs.insert(o.get<std::string>());
      EXPECT_TRUE(fs::exists(scratch / o.get<std::string>())) << what << ": no " << o.get<std::string>();
    }
    const Snapshot after = snapshot(scratch);
    for (const auto& [k, v] : before) EXPECT_EQ(after.count(k) ? after.at(k) : "(removed)", v) << what << ": input changed: " << k;
    for (const auto& [k, v] : after) {
      if (before.count(k)) continue;
      const std::string top = k.substr(0, k.find('/'));
      EXPECT_TRUE(outputs.count(top)) << what << ": unexpected output " << k;
    }
  }

  fs::path root_;
};

TEST_P(Malformed, RefusedAsStatedOrAccepted) {
  const json& c = case_at(GetParam());
  if (c["exit"] == 0) {
    expect_accepted(c);
    return;
  }
  expect_refused(c, c["args"], "main");
  // Every other command that reads this kind of document, fed the same file.
  const json& args = c["args"];
  std::string primary = args.empty() ? "" : args[0].get<std::string>();
  if (primary == "compare") primary = args.size() > 1 && args[1] == "{file}" ? "compare-fixture" : "compare-engine";
  const json also = c.contains("also") ? c["also"] : manifest()["also"][c["document"].get<std::string>()];
  for (const json& a : also) {
    if (a == primary) continue;
    SCOPED_TRACE("also: " + a.get<std::string>());
    expect_refused(c, also_args(a.get<std::string>(), c), a.get<std::string>());
  }
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string s;
  for (char ch : case_at(info.param)["id"].get<std::string>()) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Malformed, ::testing::Range<size_t>(0, manifest()["cases"].size() + manifest()["accepted"].size()),
                         case_name);

// A file name that is not UTF-8 cannot be written in manifest.json (JSON is UTF-8), so it is made
// here: input file names are written into the outputs, and used to make their writer throw.
TEST(MalformedFileName, NotUtf8IsRefusedByEveryReader) {
  const fs::path dir = fs::temp_directory_path() / ("rbdref_malformed_name_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "capture");
  fs::create_directories(dir / "scratch");
  const fs::path scratch = dir / "scratch";
  const std::string model = (scratch / "pendulum\xff.urdf").string(), state = (scratch / "state\xfe.json").string();
  fs::copy_file(kCorpus + "/support/pendulum.urdf", model);
  fs::copy_file(kCorpus + "/support/arm_state.json", state);
  fs::copy_file(kCorpus + "/support/pendulum.urdf", scratch / "pendulum.urdf");
  const std::vector<std::vector<std::string>> runs = {
      {"eval", model, "--state", (scratch / "pendulum.urdf").string()},
      {"eval", (scratch / "pendulum.urdf").string(), "--state", state, "--out", (scratch / "out.json").string()},
      {"convert", model, "--out", (scratch / "out.json").string()},
      {"fixture", model, "--samples", "1", "--out", (scratch / "out.json").string()},
      {"check", state}};
  const Snapshot before = snapshot(scratch);
  for (const auto& args : runs) {
    const CliRun r = run_rbdref(args, (dir / "capture").string());
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.describe() << "\n" << r.err;
    EXPECT_NE(r.err.find("expected a file name in UTF-8"), std::string::npos) << args[0] << ": " << r.err;
  }
  EXPECT_EQ(diff(before, snapshot(scratch)), "");
  fs::remove_all(dir);
}

// The corpus covers what it claims: ≥ 60 bad-input cases, every command and every kind of
// document; ids unique; every file of the folder used by some case.
TEST(MalformedCorpus, CoversEveryCommandAndDocumentAndUsesEveryFile) {
  const json& m = manifest();
  EXPECT_EQ(m["format"], "rbdref.malformed_corpus");
  EXPECT_GE(m["cases"].size(), 60u);
  std::map<std::string, int> by_command, by_document;
  std::set<std::string> ids, used;
  for (const json* list : {&m["cases"], &m["accepted"]})
    for (const json& c : *list) {
      EXPECT_TRUE(ids.insert(c["id"].get<std::string>()).second) << "duplicate id " << c["id"];
      if (c["exit"] != 0) {
        EXPECT_EQ(c["exit"], 2) << c["id"];
        EXPECT_FALSE(c["message"].empty()) << c["id"];
        ++by_command[c["args"].empty() ? "(none)" : c["args"][0].get<std::string>()];
        ++by_document[c["document"].get<std::string>()];
      }
      if (c.contains("file")) used.insert(c["file"].get<std::string>());
      for (const json& s : c.value("setup", json::array()))
        if (s.contains("from")) used.insert(s["from"].get<std::string>());
    }
  for (const char* cmd : {"eval", "convert", "fixture", "compare", "check", "audit"})
    EXPECT_GE(by_command[cmd], 3) << "too few cases for " << cmd;
  for (const char* doc : {"urdf", "model", "state", "fixture", "engine_output", "manifest", "options"})
    EXPECT_GE(by_document[doc], 5) << "too few cases for " << doc;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), kCorpus).string();
    if (rel == "manifest.json" || rel == "generate.py" || rel == "corpus.py" || rel == "README.md" || rel.rfind("support/", 0) == 0)
      continue;
    EXPECT_TRUE(used.count(rel)) << rel << " is used by no case of manifest.json";
  }
  std::string counts;
  for (const auto& [k, v] : by_command) counts += k + " " + std::to_string(v) + ", ";
  RecordProperty("cases_by_command", counts);
}

}  // namespace
}  // namespace rbd::test
