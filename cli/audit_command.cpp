// rbdref audit [--engines E,...] [--models M,...] [--out DIR] [--data DIR] [--update-golden]
//              [--tol Q=REL ...] [--baseline FILE | --no-baseline] [--write-baseline FILE]
//              [--model FILE ... [--floating-base] [--samples N] [--seed S] [--cache DIR | --no-cache]]
//
// The main job: for each bundled model (DATA/models/manifest.json) × each engine adapter of this
// build: reuse the golden fixture (DATA/golden/<model>.fixture.json) when its model still hashes
// the same, else make a fresh one (into DIR/fixtures, or in place with --update-golden); run the
// adapter; compare; check; write per-pair engine outputs and reports (JSON), the combined audit
// (DIR/audit.json) and JUnit XML (DIR/junit.xml); print the summary table engine × model ×
// quantity → min digits and status. Exit 0 when everything is within tolerance, 1 on any
// discrepancy or engine failure, 2 on bad input (unknown engine or model name, bad manifest).
// With a baseline (--baseline FILE, else DATA/baseline.json when it exists, unless --no-baseline;
// reports/baseline.hpp) exit 1 only on a regression against it: known discrepancies are printed
// as known. --write-baseline FILE records this audit's results as a baseline (keeping the reasons
// of the baseline it was judged against).
// --model FILE (repeatable) audits the user's own models (URDF or rbdref JSON) instead of the bundled
// ones (with --models too, both): the fixture is made once per model hash × samples × seed and kept
// in the cache folder (--cache, default $XDG_CACHE_HOME/rbdref or ~/.cache/rbdref), reused while
// the model hashes the same.
#include "cli/commands.hpp"
#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "reports/baseline.hpp"
#include "reports/compare.hpp"
#include "reports/html_report.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#ifndef RBDREF_DATA_DIR
#define RBDREF_DATA_DIR "fixtures"
#endif

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;

struct AuditOptions {
  std::string engines, models, out = "audit-out", data;
  bool engines_given = false, models_given = false;
  std::string model_only_given;  // an option that applies to --model, given without it
  std::vector<std::string> tol;
  bool update_golden = false;
  std::string baseline, write_baseline;
  bool no_baseline = false;
  std::vector<std::string> user_models;  // --model
  bool floating_base = false;
  int samples = 8;
  std::uint64_t seed = 1;
  std::string cache;
  bool no_cache = false;
};

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
  std::string tried;
  for (const std::string& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  throw InputError("--data", "", "no models/manifest.json found (tried " + tried + "); give the data folder with --data DIR");
}

struct ManifestEntry {
  std::string name, file;
  std::string loops;  // a loops file beside a URDF or JSON tree (docs/formats.md "Loops file"), or empty
  std::string contacts;  // a contacts file (docs/contact.md), or empty
  bool floating_base = false;
  int samples = 8;
  std::uint64_t seed = 1;
  std::string description;
  bool user = false;  // --model: file is the user's path, not in the data folder
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) out.push_back(t);
  return out;
}

// mkdir -p: every missing parent too; an existing non-folder is an error.
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

// Every field is checked for its type and range here, before the audit writes anything: a wrong
// type used to escape as a JSON type error (internal error, exit 3), a negative seed wrapped
// around, a name with '/' wrote outside --out, and a repeated name overwrote its twin's outputs.
std::vector<ManifestEntry> read_manifest(const std::string& path) {
  const json doc = read_json_file(path);
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != "rbdref.manifest")
    throw InputError(path, "format", "expected \"rbdref.manifest\"");
  if (!doc.contains("version") || doc["version"] != 1) throw InputError(path, "version", "expected 1");
  if (!doc.contains("models") || !doc["models"].is_array()) throw InputError(path, "models", "expected an array");
  std::vector<ManifestEntry> out;
  std::set<std::string> names;
  for (size_t k = 0; k < doc["models"].size(); ++k) {
    const json& j = doc["models"][k];
    const std::string p = "models[" + std::to_string(k) + "]";
    if (!j.is_object()) throw InputError(path, p, "expected an object with name and file");
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "name" && it.key() != "file" && it.key() != "loops" && it.key() != "contacts" &&
          it.key() != "floating_base" && it.key() != "samples" && it.key() != "seed" && it.key() != "description")
        throw InputError(path, p + "." + it.key(),
                         "unknown field (expected name, file, loops, contacts, floating_base, samples, seed, description)");
    ManifestEntry e;
    // The name names output files (golden/<name>.fixture.json, <engine>/<name>.report.json).
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty() ||
        j["name"].get<std::string>()[0] == '.' ||
        j["name"].get<std::string>().find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
            std::string::npos)
      throw InputError(path, p + ".name", "expected a name of letters, digits, '_', '-' and '.' not starting with '.'" +
                                              std::string(j.contains("name") ? ", got " + j["name"].dump() : ""));
    e.name = j["name"];
    if (!names.insert(e.name).second) throw InputError(path, p + ".name", "duplicate model name '" + e.name + "'");
    if (!j.contains("file") || !j["file"].is_string() || j["file"].get<std::string>().empty())
      throw InputError(path, p + ".file", "expected a file name (in the manifest's folder)");
    e.file = j["file"];
    if (j.contains("loops")) {
      if (!j["loops"].is_string() || j["loops"].get<std::string>().empty())
        throw InputError(path, p + ".loops", "expected the name of a loops file (in the manifest's folder)");
      e.loops = j["loops"];
    }
    if (j.contains("contacts")) {
      if (!j["contacts"].is_string() || j["contacts"].get<std::string>().empty())
        throw InputError(path, p + ".contacts", "expected the name of a contacts file (in the manifest's folder)");
      e.contacts = j["contacts"];
    }
    if (j.contains("floating_base")) {
      if (!j["floating_base"].is_boolean()) throw InputError(path, p + ".floating_base", "expected true or false");
      e.floating_base = j["floating_base"];
    }
    if (j.contains("samples")) {
      const json& s = j["samples"];
      if (!s.is_number_integer() || s.get<long long>() < 1 || s.get<long long>() > 100000)
        throw InputError(path, p + ".samples", "expected an integer from 1 to 100000, got " + s.dump());
      e.samples = s.get<int>();
    }
    if (j.contains("seed")) {
      if (!j["seed"].is_number_unsigned())
        throw InputError(path, p + ".seed", "expected an integer from 0 to 18446744073709551615, got " + j["seed"].dump());
      e.seed = j["seed"];
    }
    if (j.contains("description")) {
      if (!j["description"].is_string()) throw InputError(path, p + ".description", "expected a string");
      e.description = j["description"];
    }
    out.push_back(e);
  }
  return out;
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string fmt_digits(double d) {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f", d);
  return b;
}

int run_audit(const AuditOptions& o) {
  if (o.engines_given && split(o.engines).empty())
    throw InputError("--engines", "", "expected a comma-separated list of engine names, got nothing (omit --engines for every engine)");
  if (o.models_given && split(o.models).empty())
    throw InputError("--models", "", "expected a comma-separated list of model names, got nothing (omit --models for every model)");
  // Paths under --out and --data are written into audit.json.
  for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--out", o.out}, {"--data", o.data}})
    if (first_invalid_utf8(path) != std::string::npos)
      throw InputError(option, "", "expected a folder name in UTF-8 (paths are written into audit.json)");
  const std::string data = find_data_dir(o.data);
  const std::string models_dir = data + "/models", golden_dir = data + "/golden";
  std::vector<ManifestEntry> manifest = read_manifest(models_dir + "/manifest.json");
  if (!o.user_models.empty() && o.models.empty()) manifest.clear();
  if (!o.models.empty()) {
    std::vector<ManifestEntry> pick;
    for (const std::string& n : split(o.models)) {
      bool found = false;
      for (const ManifestEntry& e : manifest)
        if (e.name == n) pick.push_back(e), found = true;
      if (!found) throw InputError("--models", "", "unknown model '" + n + "' (see " + models_dir + "/manifest.json)");
    }
    manifest = pick;
  }
  // The user's models, named by their file's stem (made a safe file name, unique in this audit).
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
  const std::string cache = cache_dir(o);
  std::vector<std::unique_ptr<EngineAdapter>> adapters = available_adapters();
  std::vector<std::string> wanted = split(o.engines);
  std::vector<std::string> not_built;
  if (!wanted.empty()) {
    const std::set<std::string> known(known_engines().begin(), known_engines().end());
    std::vector<std::unique_ptr<EngineAdapter>> pick;
    for (const std::string& n : wanted) {
      if (!known.count(n)) throw InputError("--engines", "", "unknown engine '" + n + "' (known: mujoco, mujoco-urdf, mujoco-js, mujoco-js-urdf, dart, dart-urdf, kdl, simbody, bullet, ode, pinocchio, rbdl)");
      bool found = false;
      for (auto& a : adapters)
        if (a && a->name() == n) pick.push_back(std::move(a)), found = true;
      if (!found) not_built.push_back(n);
    }
    adapters = std::move(pick);
  }
  // An audit that audits nothing is not a pass.
  if (!not_built.empty()) {
    std::string names;
    for (const std::string& n : not_built) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--engines", "", "no adapter for " + names + " in this build (its Debian package was not found when rbdref was built; "
                                          "install it with scripts/setup.sh and rebuild); available: " +
                                          [&] { std::string a; for (auto& x : available_adapters()) a += (a.empty() ? "" : ", ") + x->name(); return a.empty() ? std::string("none") : a; }());
  }
  if (adapters.empty()) throw InputError("--engines", "", "this build has no engine adapter: nothing to audit (install libmujoco-dev and rebuild)");
  if (manifest.empty()) throw InputError(models_dir + "/manifest.json", "models", "expected at least one model: nothing to audit");
  Tolerances tol_template;
  for (const std::string& t : o.tol) {
    const size_t eq = t.find('=');
    const std::string q = t.substr(0, eq);
    const std::vector<std::string>& known = engine_quantities();
    if (eq == std::string::npos || std::find(known.begin(), known.end(), q) == known.end())
      throw InputError("--tol", "", "expected QUANTITY=RELATIVE_ERROR with QUANTITY one of H, C, tau, qdd, L, D, got '" + t + "'");
    char* end = nullptr;
    const double v = std::strtod(t.c_str() + eq + 1, &end);
    if (!end || *end || !(v > 0)) throw InputError("--tol", "", "expected a positive number after '=' in '" + t + "'");
    tol_template.overrides[q] = v;
  }

  // The baseline: given, else the data folder's (the bundled audit's known discrepancies).
  std::optional<Baseline> baseline;
  if (!o.baseline.empty()) baseline = read_baseline(o.baseline);
  else if (!o.no_baseline && file_exists(data + "/baseline.json")) baseline = read_baseline(data + "/baseline.json");

  // Everything that can be bad input is read before the first output is written: the models,
  // their golden fixtures, and the output paths that exist already (a read-only report, a file
  // where a folder goes). An error halfway used to leave the outputs of the models before it.
  std::vector<LoadedModel> loaded;
  std::vector<std::optional<Fixture>> goldens;
  for (const ManifestEntry& me : manifest) {
    LoadOptions uo;
    uo.floating_base = me.floating_base;
    if (!me.loops.empty()) uo.loops_file = models_dir + "/" + me.loops;
    if (!me.contacts.empty()) uo.contacts_file = models_dir + "/" + me.contacts;
    if (me.user) {
      loaded.push_back(load_model(me.file, uo));
      goldens.emplace_back();
      continue;
    }
    loaded.push_back(load_model(models_dir + "/" + me.file, uo));
    loaded.back().file = "models/" + me.file;  // as the data folder names it, not this machine's absolute path
    if (!me.loops.empty()) loaded.back().loops_file = "models/" + me.loops;
    if (!me.contacts.empty()) loaded.back().contacts_file = "models/" + me.contacts;
    const std::string golden = golden_dir + "/" + me.name + ".fixture.json";
    goldens.emplace_back();
    if (!o.update_golden && file_exists(golden)) goldens.back() = read_fixture_file(golden);
  }
  std::vector<std::string> folders{o.out, o.out + "/fixtures"}, files{o.out + "/audit.json", o.out + "/junit.xml", o.out + "/report.html"};
  if (!o.write_baseline.empty()) files.push_back(o.write_baseline);
  for (const auto& a : adapters) folders.push_back(o.out + "/" + a->name());
  for (const ManifestEntry& me : manifest) {
    files.push_back(o.update_golden && !me.user ? golden_dir + "/" + me.name + ".fixture.json" : o.out + "/fixtures/" + me.name + ".fixture.json");
    for (const auto& a : adapters)
      for (const char* ext : {".engine.json", ".report.json"}) files.push_back(o.out + "/" + a->name() + "/" + me.name + ext);
  }
  struct stat st;
  for (const std::string& d : folders)
    if (::stat(d.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) throw InputError(d, "", "is not a folder; the audit writes its outputs there");
  for (const std::string& f : files)
    if (::lstat(f.c_str(), &st) == 0) check_output_path(f);

  make_dir(o.out);
  make_dir(o.out + "/fixtures");
  std::vector<Report> reports;
  std::vector<AuditRun> audit_runs;
  std::vector<size_t> report_of;  // audit_runs[i]'s index in reports, or npos
  ojson runs = ojson::array();
  ojson model_info = ojson::array();  // per model: its file, hash and samples (kind, κ₂(H)) for the HTML report
  bool all_ok = true;
  const size_t total = manifest.size() * std::max<size_t>(adapters.size(), 1);
  size_t step = 0;

  for (size_t mi = 0; mi < manifest.size(); ++mi) {
    const ManifestEntry& me = manifest[mi];
    const LoadedModel& lm = loaded[mi];
    // Golden fixture: reuse when it still describes this model; else make one. A user's model:
    // the cached fixture of its hash, samples and seed, else a new one (into the cache).
    const std::string golden = golden_dir + "/" + me.name + ".fixture.json";
    std::string fixture_file = golden;
    Fixture fx;
    bool reuse = false;
    const std::string model_hash = sha256_hex(model_canonical_text(lm.desc));
    std::string cached;
    if (me.user && !cache.empty()) {
      cached = cache + "/fixtures/" + model_hash + "-n" + std::to_string(me.samples) + "-s" + std::to_string(me.seed) + ".fixture.json";
      if (file_exists(cached)) {
        try {
          fx = read_fixture_file(cached);
          reuse = fx.model_sha256 == model_hash && static_cast<int>(fx.samples.size()) == me.samples;
        } catch (const InputError& e) {
          std::cerr << "audit: the cached fixture " << cached << " is unreadable (" << e.what() << "); making it again\n";
        }
        if (reuse) {
          fixture_file = cached;
          std::cerr << "audit: " << me.file << ": reusing the cached fixture " << cached << "\n";
        }
      }
    }
    if (goldens[mi]) {
      fx = *goldens[mi];
      reuse = fx.model_sha256 == sha256_hex(model_canonical_text(lm.desc));
      if (!reuse) std::cerr << "audit: " << golden << " was made from another version of " << me.file << "; regenerating\n";
    }
    if (!reuse) {
      std::cerr << "audit: making the fixture of " << me.name << " (" << me.samples << " samples at bin50, certified at bin100)\n";
      fx = make_fixture(lm, me.samples, me.seed, *Precision::parse("bin50"));
      fixture_file = o.update_golden && !me.user ? golden : o.out + "/fixtures/" + me.name + ".fixture.json";
      const std::string text = fixture_text(fixture_to_json(fx));
      if (!cached.empty()) {
        try {
          make_dir(cache + "/fixtures");
          write_file_atomic(cached, text);
          fixture_file = cached;
        } catch (const InputError& e) {
          std::cerr << "audit: cannot cache the fixture (" << e.what() << "); it is written to " << fixture_file << "\n";
        }
      }
      if (fixture_file != cached) write_file_atomic(fixture_file, text);
    }
    {
      ojson samples = ojson::array();
      for (const Sample& s : fx.samples) {
        char* end = nullptr;
        const double k = std::strtod(s.condition_number.c_str(), &end);
        samples.push_back({{"id", s.id}, {"kind", s.kind}, {"kappa", end && *end == 0 && std::isfinite(k) ? ojson(k) : ojson(nullptr)}});
      }
      model_info.push_back({{"name", me.name}, {"file", me.user ? me.file : "models/" + me.file}, {"sha256", fx.model_sha256},
                            {"dofs", fx.dofs.size()}, {"samples", samples}});
    }
    for (const std::string& n : not_built)
      runs.push_back({{"engine", n}, {"model", me.name}, {"status", "not available"},
                      {"reason", "this build has no " + n + " adapter (package not found at build time)"}});
    for (const auto& a : adapters) {
      ++step;
      const std::string tag = a->name() + " × " + me.name;
      std::cerr << "[" << step << "/" << total << "] " << tag << ": ";
      const std::string why = a->unsupported(fx);
      if (!why.empty()) {
        std::cerr << "unsupported (" << why << ")\n";
        runs.push_back({{"engine", a->name()}, {"model", me.name}, {"status", "unsupported"}, {"reason", why}});
        audit_runs.push_back({a->name(), me.name, "unsupported", "", why, nullptr});
        report_of.push_back(std::string::npos);
        continue;
      }
      std::cerr << fx.samples.size() << " samples... " << std::flush;
      make_dir(o.out + "/" + a->name());
      const std::string base = o.out + "/" + a->name() + "/" + me.name;
      EngineOutput eo;
      try {
        eo = a->imports_source() ? a->run_source(fx, fixture_file, me.user ? me.file : models_dir + "/" + me.file) : a->run(fx, fixture_file);
      } catch (const EngineRefusal& e) {
        std::cerr << "refused (" << e.what() << ")\n";
        runs.push_back({{"engine", a->name()}, {"model", me.name}, {"status", "refused"}, {"reason", e.what()}});
        audit_runs.push_back({a->name(), me.name, "refused", "", e.what(), nullptr});
        report_of.push_back(std::string::npos);
        continue;
      } catch (const EngineError& e) {
        std::cerr << "FAILED: " << e.what() << "\n";
        runs.push_back({{"engine", a->name()}, {"model", me.name}, {"status", "engine failed"}, {"reason", e.what()}});
        audit_runs.push_back({a->name(), me.name, "engine failed", "", e.what(), nullptr});
        report_of.push_back(std::string::npos);
        all_ok = false;
        continue;
      }
      write_file_atomic(base + ".engine.json", engine_output_to_json(eo).dump(1) + "\n");
      Tolerances tol = Tolerances::defaults(eo.epsilon(base + ".engine.json"));
      tol.overrides = tol_template.overrides;
      Report r = compare(fx, fixture_file, eo, base + ".engine.json", tol);
      write_file_atomic(base + ".report.json", report_to_json(r).dump(1) + "\n");
      std::cerr << (r.passed ? "ok" : "DISCREPANCIES") << "\n";
      all_ok = all_ok && r.passed;
      runs.push_back({{"engine", a->name()}, {"model", me.name}, {"status", r.passed ? "passed" : "failed"},
                      {"diagnosis", diagnosis(r)}, {"fixture", fixture_file}, {"engine_output", base + ".engine.json"}, {"report", base + ".report.json"},
                      {"report_index", reports.size()}});
      audit_runs.push_back({a->name(), me.name, r.passed ? "passed" : "failed", diagnosis(r), "", nullptr});
      report_of.push_back(reports.size());
      reports.push_back(std::move(r));
    }
  }

  for (size_t i = 0; i < audit_runs.size(); ++i)
    if (report_of[i] != std::string::npos) audit_runs[i].report = &reports[report_of[i]];
  // Judged against the baseline: a run's status is "known" when it fails only by what the baseline
  // lists, "REGRESSED" when it has a regression.
  std::map<std::string, BaselineVerdict> verdicts;  // by "engine × model"
  KnownFailures known;
  bool regressed = false;
  if (baseline) {
    known.source = "baseline " + baseline->file;
    for (const AuditRun& ar : audit_runs) {
      BaselineVerdict v = judge(*baseline, ar);
      regressed = regressed || v.regressed();
      // JUnit names a report by the model's own name, which for --model is not the run's name.
      if (ar.report) known.names[ar.report->engine + " × " + ar.report->model_name] = v.known_names;
      verdicts[ar.engine + " × " + ar.model] = std::move(v);
    }
    for (ojson& run : runs) {
      const auto it = verdicts.find(run["engine"].get<std::string>() + " × " + run["model"].get<std::string>());
      if (it == verdicts.end()) continue;
      const BaselineVerdict& v = it->second;
      run["baseline"] = {{"status", v.regressed() ? "regressed" : !v.known.empty() ? "known" : v.in_baseline ? "matches" : "not in baseline"},
                         {"regressions", v.regressions}, {"known", v.known}, {"improvements", v.improvements}};
      if (!v.reason.empty()) run["baseline"]["reason"] = v.reason;
    }
  }

  // Summary: one row per engine × model, one column per quantity (min digits / status), the echo
  // and the checks.
  std::ostringstream t;
  const std::vector<std::string>& qs = engine_quantities();
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-22s", "engine", "model");
  t << line;
  for (const std::string& q : qs) {
    std::snprintf(line, sizeof line, " %9s", q.c_str());
    t << line;
  }
  t << "  echo     checks  status\n";
  size_t ri = 0;
  for (const ojson& run : runs) {
    std::snprintf(line, sizeof line, "%-10s %-22s", run["engine"].get<std::string>().c_str(), run["model"].get<std::string>().c_str());
    t << line;
    const std::string status = run["status"];
    if (status != "passed" && status != "failed") {
      t << "  " << status << ": " << run.value("reason", "") << "\n";
      continue;
    }
    const Report& r = reports[ri++];
    for (const std::string& q : qs) {
      std::string cell = "-";
      for (const QuantityScore& s : r.quantities)
        if (s.quantity == q && s.samples > 0) cell = fmt_digits(s.min_digits) + (s.passed ? " " : s.convention.empty() ? "!" : "~");
      std::snprintf(line, sizeof line, " %9s", cell.c_str());
      t << line;
    }
    const std::string echo = r.model_echo.is_object() ? r.model_echo.value("status", "?") : "none";
    int failed_checks = 0;
    for (const SampleCheck& c : r.checks) failed_checks += c.result.passed || !c.convention.empty() ? 0 : 1;
    std::string verdict = r.passed ? "passed" : "FAILED";
    if (baseline) {
      const BaselineVerdict& v = verdicts[run["engine"].get<std::string>() + " × " + run["model"].get<std::string>()];
      if (v.regressed()) verdict = "REGRESSED";
      else if (!r.passed) verdict = "known";
    }
    std::snprintf(line, sizeof line, "  %-8s %-6s  %s\n", echo.c_str(), failed_checks ? std::to_string(failed_checks).c_str() : "ok",
                  verdict.c_str());
    t << line;
  }
  t << "(cells: the smallest LRE digits over the samples, capped at the certified digits; '!' = outside tolerance;\n"
       " '~' = outside tolerance by a convention the engine declares, e.g. soft loop constraints: not a defect)\n";
  for (const ojson& run : runs)
    if (run.value("status", "") == "failed" || run.value("diagnosis", "").rfind("convention (declared)", 0) == 0)
      t << run["engine"].get<std::string>() << " × " << run["model"].get<std::string>() << ": " << run["diagnosis"].get<std::string>()
        << [&]() -> std::string {
             if (!run.contains("baseline") || run["baseline"]["status"] != "known") return "";
             const BaselineEntry* e = baseline->find(run["engine"], run["model"]);
             return e && !e->reason.empty() ? " [known: baseline: " + e->reason + "]" : " [known: baseline]";
           }() << "\n";
  if (baseline) {
    size_t n_known = 0, n_reg = 0, n_imp = 0;
    std::ostringstream lines;
    for (const auto& [tag, v] : verdicts) {
      n_known += v.known.empty() ? 0 : 1;
      n_reg += v.regressed() ? 1 : 0;
      for (const std::string& x : v.regressions) lines << "  REGRESSION " << tag << ": " << x << "\n";
      for (const std::string& x : v.improvements) n_imp++, lines << "  improved   " << tag << ": " << x << "\n";
    }
    t << "baseline " << baseline->file << " (margin " << fmt_digits(baseline->margin) << " digits): " << n_reg
      << " engine × model with regressions, " << n_known << " with known discrepancies only" << (n_imp ? ", improvements to record (--write-baseline)" : "")
      << "\n" << lines.str();
  }

  ojson audit;
  audit["format"] = "rbdref.audit";
  audit["version"] = 1;
  audit["passed"] = all_ok;
  if (baseline) audit["baseline"] = {{"file", baseline->file}, {"margin_digits", baseline->margin}, {"regressed", regressed}};
  audit["runs"] = runs;
  audit["models"] = model_info;
  ojson rj = ojson::array();
  for (const Report& r : reports) rj.push_back(report_to_json(r));
  audit["reports"] = rj;
  write_file_atomic(o.out + "/audit.json", audit.dump(1) + "\n");
  write_file_atomic(o.out + "/junit.xml", reports_to_junit(reports, known));
  write_file_atomic(o.out + "/report.html", audit_html(audit, o.out + "/audit.json"));
  if (!o.write_baseline.empty()) {
    std::vector<BaselineEntry> entries;
    for (const AuditRun& ar : audit_runs) {
      BaselineEntry e = baseline_entry(ar);
      if (baseline)
        if (const BaselineEntry* old = baseline->find(ar.engine, ar.model)) e.reason = old->reason, e.margin = old->margin;
      entries.push_back(std::move(e));
    }
    write_file_atomic(o.write_baseline, baseline_to_json(entries, baseline ? baseline->margin : 0.5).dump(1) + "\n");
    std::cerr << "audit: wrote the baseline " << o.write_baseline << " (" << entries.size() << " engine × model entries)\n";
  }
  std::cout << t.str() << "wrote " << o.out << "/audit.json, " << o.out << "/junit.xml, " << o.out << "/report.html and per-run files under "
            << o.out << "/\n";
  return (baseline ? !regressed : all_ok) ? 0 : 1;
}

}  // namespace

Run add_audit(CLI::App& app) {
  auto o = std::make_shared<AuditOptions>();
  CLI::App* sub = app.add_subcommand("audit", "Audit every available engine on every bundled model: fixtures, engines, compare, checks, reports");
  CLI::Option* eng = sub->add_option("--engines", o->engines, "Comma-separated engines (default: every adapter of this build)");
  CLI::Option* mod = sub->add_option("--models", o->models, "Comma-separated bundled model names (default: all in the manifest)");
  sub->add_option("--out", o->out, "Output folder (default audit-out)")->check(nonempty_output);
  sub->add_option("--data", o->data, "Folder holding models/manifest.json and golden/ (default: the source tree's fixtures/, else found beside the binary)");
  sub->add_option("--tol", o->tol, "Tolerance override QUANTITY=RELATIVE_ERROR (repeatable)");
  sub->add_flag("--update-golden", o->update_golden, "Regenerate the golden fixtures in DATA/golden instead of reusing them");
  CLI::Option* bl = sub->add_option("--baseline", o->baseline,
                                    "Judge against a baseline (rbdref.baseline, or a previous audit.json): exit 1 only on a regression "
                                    "(default: DATA/baseline.json when it exists)");
  sub->add_flag("--no-baseline", o->no_baseline, "Judge by tolerance alone, ignoring DATA/baseline.json")->excludes(bl);
  sub->add_option("--write-baseline", o->write_baseline, "Write this audit's results as a baseline to FILE")->check(nonempty_output);
  sub->add_option("--model", o->user_models, "Audit this model file (URDF or rbdref JSON; repeatable) instead of the bundled models");
  CLI::Option* fb = sub->add_flag("--floating-base", o->floating_base, "--model: attach each root to the world by a free joint");
  CLI::Option* ns = sub->add_option("--samples", o->samples, "--model: number of samples (default 8)");
  CLI::Option* sd = sub->add_option("--seed", o->seed, "--model: seed of the sample generator (default 1)");
  CLI::Option* cache = sub->add_option("--cache", o->cache, "--model: fixture cache folder (default $XDG_CACHE_HOME/rbdref, else ~/.cache/rbdref)");
  sub->add_flag("--no-cache", o->no_cache, "--model: make every fixture anew, cache nothing")->excludes(cache);
  return [o, eng, mod, fb, ns, sd, cache] {
    o->engines_given = eng->count() > 0;
    o->models_given = mod->count() > 0;
    for (CLI::Option* x : {fb, ns, sd, cache})
      if (x->count() > 0 && o->model_only_given.empty()) o->model_only_given = x->get_name();
    return run_audit(*o);
  };
}

}  // namespace rbd::cli
