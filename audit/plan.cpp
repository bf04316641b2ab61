// The audit's first stage (audit.hpp): what to audit, every input read and every output path
// checked before the first output is written.
#include "audit/audit.hpp"
#include "certify/memory.hpp"
#include "io/text.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#ifndef RBDREF_DATA_DIR
#define RBDREF_DATA_DIR "fixtures"
#endif

namespace rbd::audit {

namespace {

// The fixture cache of --model: --cache, else $XDG_CACHE_HOME/rbdref, else $HOME/.cache/rbdref;
// empty (no cache) with --no-cache or without either variable.
std::string cache_dir(const AuditOptions& o) {
  if (o.no_cache) return "";
  if (!o.cache.empty()) return o.cache;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/rbdref";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/rbdref";
  return "";
}

// The data folder (models/manifest.json, golden/): --data, else the source tree's fixtures/ this
// binary was built from, else beside the binary (build/cli/rbdref -> ../../fixtures, an installed
// bin/rbdref -> ../share/rbdref/fixtures), so a moved or installed binary still finds its models.
std::string find_data_dir(const std::string& given) {
  if (!given.empty()) return given;
  std::vector<std::string> candidates{RBDREF_DATA_DIR};
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    std::string dir(exe);
    dir = dir.substr(0, dir.find_last_of('/'));
    candidates.push_back(dir + "/../../fixtures");
    candidates.push_back(dir + "/../share/rbdref/fixtures");
    candidates.push_back(dir + "/fixtures");
  }
  struct stat st;
  for (const std::string& c : candidates)
    if (::stat((c + "/models/manifest.json").c_str(), &st) == 0) return c;
  throw InputError("--data", "", "no models/manifest.json found (tried " + join(candidates) + "); give the data folder with --data DIR");
}

// The models: the manifest's (all, or --models), and the user's --model files, each named by its
// file's stem (made a safe file name, unique in this audit).
std::vector<ManifestEntry> select_models(const AuditOptions& o, const std::string& models_dir) {
  std::vector<ManifestEntry> manifest = read_manifest(models_dir + "/manifest.json");
  if (!o.user_models.empty() && o.models.empty()) manifest.clear();
  if (!o.models.empty()) {
    std::vector<ManifestEntry> pick;
    std::set<std::string> named;
    for (const std::string& n : split_list(o.models)) {
      if (!named.insert(n).second) throw InputError("--models", "", "model '" + n + "' given twice (each model is audited once)");
      bool found = false;
      for (const ManifestEntry& e : manifest)
        if (e.name == n) pick.push_back(e), found = true;
      if (!found) throw InputError("--models", "", "unknown model '" + n + "' (see " + models_dir + "/manifest.json)");
    }
    manifest = pick;
  }
  if (o.user_models.empty() && !o.model_only_given.empty())
    throw InputError(o.model_only_given, "", "applies to the models given with --model (the bundled models take theirs from the manifest)");
  if (o.samples < 1 || o.samples > 100000) throw InputError("--samples", "", "expected an integer from 1 to 100000");
  for (const std::string& f : o.user_models) {
    if (f.empty() || first_invalid_utf8(f) != std::string::npos)
      throw InputError("--model", "", "expected a model file name in UTF-8");
    ManifestEntry e;
    std::string stem = f.substr(f.find_last_of('/') == std::string::npos ? 0 : f.find_last_of('/') + 1);
    if (const size_t dot = stem.find_last_of('.'); dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
    for (char& c : stem)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    if (stem.empty() || stem[0] == '.') stem = "model" + stem;
    e.name = stem;
    for (int k = 2;; ++k) {
      bool clash = false;
      for (const ManifestEntry& m : manifest) clash = clash || m.name == e.name;
      if (!clash) break;
      e.name = stem + "_" + std::to_string(k);
    }
    e.file = f;
    e.user = true;
    e.floating_base = o.floating_base;
    e.samples = o.samples;
    e.seed = o.seed;
    manifest.push_back(e);
  }
  return manifest;
}

// The adapters: every one of this build, or those --engines names (the registry's names; a known
// engine this build lacks is an error, so that an audit never audits less than it was asked).
void select_engines(const AuditOptions& o, AuditPlan& plan) {
  plan.adapters = available_adapters();
  const std::vector<std::string> wanted = split_list(o.engines);
  if (!wanted.empty()) {
    const std::set<std::string> known(known_engines().begin(), known_engines().end());
    std::vector<std::unique_ptr<EngineAdapter>> pick;
    for (const std::string& n : wanted) {
      if (!known.count(n)) throw InputError("--engines", "", "unknown engine '" + n + "' (known: " + join(known_engines()) + ")");
      bool found = false;
      for (auto& a : plan.adapters)
        if (a && a->name() == n) pick.push_back(std::move(a)), found = true;
      if (!found) plan.not_built.push_back(n);
    }
    plan.adapters = std::move(pick);
  }
  if (!plan.not_built.empty()) {
    std::vector<std::string> available;
    for (const auto& a : available_adapters()) available.push_back(a->name());
    throw InputError("--engines", "", "no adapter for " + join(plan.not_built) +
                                          " in this build (its Debian package was not found when rbdref was built; "
                                          "install it with scripts/setup.sh and rebuild); available: " +
                                          (available.empty() ? std::string("none") : join(available)));
  }
  if (plan.adapters.empty()) throw InputError("--engines", "", "this build has no engine adapter: nothing to audit (install libmujoco-dev and rebuild)");
}

// Every model and golden fixture read, and every output path that exists already checked (a
// read-only report, a file where a folder goes), so that bad input never leaves half an audit.
void read_inputs(const AuditOptions& o, AuditPlan& plan) {
  for (const ManifestEntry& me : plan.models) {
    LoadOptions uo;
    uo.floating_base = me.floating_base;
    if (!me.loops.empty()) uo.loops_file = plan.models_dir + "/" + me.loops;
    if (!me.contacts.empty()) uo.contacts_file = plan.models_dir + "/" + me.contacts;
    if (me.user) {
      plan.loaded.push_back(load_model(me.file, uo));
      plan.goldens.emplace_back();
      continue;
    }
    plan.loaded.push_back(load_model(plan.models_dir + "/" + me.file, uo));
    LoadedModel& lm = plan.loaded.back();
    lm.file = "models/" + me.file;  // as the data folder names it, not this machine's absolute path
    if (!me.loops.empty()) lm.loops_file = "models/" + me.loops;
    if (!me.contacts.empty()) lm.contacts_file = "models/" + me.contacts;
    const std::string golden = plan.golden_dir + "/" + me.name + ".fixture.json";
    plan.goldens.emplace_back();
    if (!o.update_golden && file_exists(golden)) plan.goldens.back() = read_fixture_file(golden);
  }
  // The memory guard, before any fixture is made: bin50 checked at bin100, on the worker threads.
  for (size_t k = 0; k < plan.loaded.size(); ++k)
    check_model_memory(plan.models[k].user ? plan.models[k].file : plan.models_dir + "/" + plan.models[k].file, plan.loaded[k].desc,
                       *Precision::parse("bin50"), o.max_memory, plan.goldens[k] ? 1 : default_threads());
  std::vector<std::string> folders{o.out, o.out + "/fixtures"};
  std::vector<std::string> files{o.out + "/audit.json", o.out + "/junit.xml", o.out + "/report.html"};
  if (!o.write_baseline.empty()) files.push_back(o.write_baseline);
  for (const auto& a : plan.adapters) folders.push_back(o.out + "/" + a->name());
  for (const ManifestEntry& me : plan.models) {
    files.push_back(o.update_golden && !me.user ? plan.golden_dir + "/" + me.name + ".fixture.json"
                                                : o.out + "/fixtures/" + me.name + ".fixture.json");
    for (const auto& a : plan.adapters)
      for (const char* ext : {".engine.json", ".report.json"}) files.push_back(o.out + "/" + a->name() + "/" + me.name + ext);
  }
  struct stat st;
  for (const std::string& d : folders)
    if (::stat(d.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) throw InputError(d, "", "is not a folder; the audit writes its outputs there");
  for (const std::string& f : files) {
    check_output_name(f);
    if (::lstat(f.c_str(), &st) == 0) check_output_path(f);
  }
  // The baseline outside --out goes into a folder the audit does not make: it must exist now.
  const std::string& wb = o.write_baseline;
  const std::string out_prefix = o.out + (o.out.back() == '/' ? "" : "/");
  if (!wb.empty() && wb != "-" && wb.compare(0, out_prefix.size(), out_prefix) != 0) check_output_path(wb);
}

}  // namespace

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

AuditPlan plan_audit(const AuditOptions& o) {
  if (o.engines_given && split_list(o.engines).empty())
    throw InputError("--engines", "", "expected a comma-separated list of engine names, got nothing (omit --engines for every engine)");
  if (o.models_given && split_list(o.models).empty())
    throw InputError("--models", "", "expected a comma-separated list of model names, got nothing (omit --models for every model)");
  if (o.out == "-")
    throw InputError("--out", "", "expected a folder (the audit writes several files there); '-' (standard output) cannot hold them");
  // Paths under --out and --data are written into audit.json.
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--out", o.out}, {"--data", o.data}})
    if (first_invalid_utf8(path) != std::string::npos)
      throw InputError(option, "", "expected a folder name in UTF-8 (paths are written into audit.json)");
  AuditPlan plan;
  plan.data = find_data_dir(o.data);
  plan.models_dir = plan.data + "/models";
  plan.golden_dir = plan.data + "/golden";
  plan.models = select_models(o, plan.models_dir);
  plan.cache = cache_dir(o);
  select_engines(o, plan);
  if (plan.models.empty()) throw InputError(plan.models_dir + "/manifest.json", "models", "expected at least one model: nothing to audit");
  // The overrides, read by compare's parser (the engine's ε is known only after its run).
  Tolerances overrides;
  for (const std::string& spec : o.tol) add_tolerance_override(overrides, spec);
  plan.tolerance_overrides = overrides.overrides;
  // The baseline: given, else the data folder's (the bundled audit's known discrepancies).
  if (!o.baseline.empty()) plan.baseline = read_baseline(o.baseline);
  else if (!o.no_baseline && file_exists(plan.data + "/baseline.json")) plan.baseline = read_baseline(plan.data + "/baseline.json");
  read_inputs(o, plan);
  return plan;
}

}  // namespace rbd::audit
