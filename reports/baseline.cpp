// CI baselines: reading (a baseline or an audit.json), writing, and judging a run against its entry.
// The rules are in baseline.hpp.
#include "reports/baseline.hpp"

#include <cmath>
#include <cstdio>

namespace rbd {

namespace {

using ojson = nlohmann::ordered_json;

// The statuses of a baseline entry: every run status but "not available" (such a run makes no entry).
const std::initializer_list<RunStatus> kEntryStatuses{RunStatus::Passed, RunStatus::Failed, RunStatus::EngineFailed, RunStatus::Unsupported,
                                                      RunStatus::Refused};
std::optional<RunStatus> entry_status(const std::string& text) {
  const std::optional<RunStatus> s = parse_run_status(text);
  return s && *s != RunStatus::NotAvailable ? s : std::nullopt;
}

std::string d1(double x) { return format_number("%.1f", x); }

double read_digits(const json& v, const std::string& file, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 100000)
    throw InputError(file, field, "expected a number of digits (0 or more), got " + v.dump());
  return v.get<double>();
}

double read_margin(const json& v, const std::string& file, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 100)
    throw InputError(file, field, "expected a margin in digits from 0 to 100, got " + v.dump());
  return v.get<double>();
}

std::string read_name(const json& j, const char* key, const std::string& file, const std::string& at) {
  if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
    throw InputError(file, at + "." + key, "expected a non-empty string");
  return j[key];
}

// An entry's model_sha256, samples and seed (each optional), from a baseline or an audit's models[].
void read_identity(const json& j, const std::string& file, const std::string& at, BaselineEntry& e) {
  if (j.contains("model_sha256")) {
    const json& h = j["model_sha256"];
    if (!h.is_string() || h.get<std::string>().size() != 64 ||
        h.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
      throw InputError(file, at + ".model_sha256", "expected 64 lowercase hexadecimal digits (the model's SHA-256), got " + h.dump());
    e.model_sha256 = h;
  }
  if (j.contains("samples")) {
    const json& n = j["samples"];
    if (!n.is_number_integer() || n.get<std::int64_t>() < 1 || n.get<std::int64_t>() > 100000)
      throw InputError(file, at + ".samples", "expected the fixture's sample count, an integer from 1 to 100000, got " + n.dump());
    e.samples = n.get<int>();
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned())
      throw InputError(file, at + ".seed", "expected the fixture's seed, an integer from 0 to 18446744073709551615, got " + j["seed"].dump());
    e.seed = j["seed"].get<std::uint64_t>();
  }
}

Baseline from_baseline(const json& doc, const std::string& path) {
  Baseline b;
  b.file = path;
  if (!doc.contains("version") || doc["version"] != 1) throw InputError(path, "version", "expected 1");
  if (doc.contains("margin_digits")) b.margin = read_margin(doc["margin_digits"], path, "margin_digits");
  if (!doc.contains("runs") || !doc["runs"].is_array()) throw InputError(path, "runs", "expected an array of engine × model entries");
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t k = 0; k < doc["runs"].size(); ++k) {
    const json& j = doc["runs"][k];
    const std::string at = "runs[" + std::to_string(k) + "]";
    if (!j.is_object()) throw InputError(path, at, "expected an object with engine, model, status");
    known_fields(j, {"engine", "model", "status", "digits", "known_failures", "diagnosis", "reason", "margin_digits", "model_sha256",
                     "samples", "seed"},
                 path, at);
    BaselineEntry e;
    e.engine = read_name(j, "engine", path, at);
    e.model = read_name(j, "model", path, at);
    if (!seen.insert({e.engine, e.model}).second)
      throw InputError(path, at, "a second entry for " + e.engine + " × " + e.model + " (one per engine × model)");
    read_identity(j, path, at, e);
    const std::optional<RunStatus> status =
        j.contains("status") && j["status"].is_string() ? entry_status(j["status"].get<std::string>()) : std::nullopt;
    if (!status)
      throw InputError(path, at + ".status", "expected one of " + spell_list(kEntryStatuses, ", ") +
                                                 std::string(j.contains("status") ? ", got " + j["status"].dump() : ""));
    e.status = *status;
    if (j.contains("digits")) {
      if (!j["digits"].is_object()) throw InputError(path, at + ".digits", "expected an object quantity -> digits");
      for (auto it = j["digits"].begin(); it != j["digits"].end(); ++it)
        e.digits[it.key()] = read_digits(it.value(), path, at + ".digits." + it.key());
    }
    if (j.contains("known_failures")) {
      if (!j["known_failures"].is_array()) throw InputError(path, at + ".known_failures", "expected an array of names");
      for (size_t i = 0; i < j["known_failures"].size(); ++i) {
        const json& n = j["known_failures"][i];
        if (!n.is_string() || n.get<std::string>().empty())
          throw InputError(path, at + ".known_failures[" + std::to_string(i) + "]",
                           "expected a quantity or check name, \"samples\" or \"model_echo\"");
        e.known_failures.insert(n.get<std::string>());
      }
    }
    for (const char* key : {"diagnosis", "reason"})
      if (j.contains(key) && !j[key].is_string()) throw InputError(path, at + "." + key, "expected a string");
    e.diagnosis = j.value("diagnosis", "");
    e.reason = j.value("reason", "");
    if (j.contains("margin_digits")) e.margin = read_margin(j["margin_digits"], path, at + ".margin_digits");
    b.entries.push_back(std::move(e));
  }
  return b;
}

// A previous audit.json: its runs (status, diagnosis) and its reports (digits, failures).
// A field of a previous audit's document, checked: `passed` true or false (absent: true), a name
// a string (absent: ""); anything else is InputError naming the field.
bool passed_field(const json& o, const std::string& path, const std::string& at) {
  if (!o.contains("passed")) return true;
  if (!o["passed"].is_boolean()) throw InputError(path, at + ".passed", "expected true or false, got " + o["passed"].dump());
  return o["passed"].get<bool>();
}
std::string string_field(const json& o, const char* key, const std::string& path, const std::string& at) {
  if (!o.contains(key)) return "";
  if (!o[key].is_string()) throw InputError(path, at + "." + key, "expected a string, got " + o[key].dump());
  return o[key].get<std::string>();
}

Baseline from_audit(const json& doc, const std::string& path) {
  Baseline b;
  b.file = path;
  if (!doc.contains("runs") || !doc["runs"].is_array()) throw InputError(path, "runs", "expected the audit's array of runs");
  const json reports = doc.contains("reports") && doc["reports"].is_array() ? doc["reports"] : json::array();
  // The models' hashes, sample counts and seeds (an audit.json of an older rbdref may lack them).
  std::map<std::string, BaselineEntry> ids;
  if (doc.contains("models") && doc["models"].is_array())
    for (size_t k = 0; k < doc["models"].size(); ++k) {
      const json& m = doc["models"][k];
      const std::string at = "models[" + std::to_string(k) + "]";
      if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) throw InputError(path, at + ".name", "expected a string");
      BaselineEntry id;
      json idj = json::object();
      if (m.contains("sha256")) idj["model_sha256"] = m["sha256"];
      if (m.contains("samples") && m["samples"].is_array()) idj["samples"] = m["samples"].size();
      if (m.contains("seed")) idj["seed"] = m["seed"];
      read_identity(idj, path, at, id);
      ids[m["name"].get<std::string>()] = id;
    }
  for (size_t k = 0; k < doc["runs"].size(); ++k) {
    const json& j = doc["runs"][k];
    const std::string at = "runs[" + std::to_string(k) + "]";
    if (!j.is_object()) throw InputError(path, at, "expected an object");
    BaselineEntry e;
    e.engine = read_name(j, "engine", path, at);
    e.model = read_name(j, "model", path, at);
    if (!j.contains("status") || !j["status"].is_string()) throw InputError(path, at + ".status", "expected a string");
    if (parse_run_status(j["status"].get<std::string>()) == RunStatus::NotAvailable) continue;
    const std::optional<RunStatus> status = entry_status(j["status"].get<std::string>());
    if (!status) throw InputError(path, at + ".status", "expected one of " + spell_list(kEntryStatuses, ", "));
    e.status = *status;
    if (j.contains("diagnosis") && j["diagnosis"].is_string()) e.diagnosis = j["diagnosis"];
    if (const auto it = ids.find(e.model); it != ids.end()) {
      e.model_sha256 = it->second.model_sha256;
      e.samples = it->second.samples;
      e.seed = it->second.seed;
    }
    if (e.status == RunStatus::EngineFailed) e.known_failures.insert("engine");
    for (size_t i = 0; i < reports.size(); ++i) {
      const json& r = reports[i];
      const std::string rat = "reports[" + std::to_string(i) + "]";
      if (!r.is_object() || !r.contains("engine") || !r["engine"].is_object() ||
          string_field(r["engine"], "name", path, rat + ".engine") != e.engine || !r.contains("model") || !r["model"].is_object() ||
          string_field(r["model"], "name", path, rat + ".model") != e.model)
        continue;
      if (r.contains("quantities") && r["quantities"].is_array())
        for (size_t q = 0; q < r["quantities"].size(); ++q) {
          const json& qj = r["quantities"][q];
          const std::string qat = rat + ".quantities[" + std::to_string(q) + "]";
          if (!qj.is_object() || !qj.contains("quantity") || !qj["quantity"].is_string())
            throw InputError(path, qat + ".quantity", "expected a string");
          if (!qj.contains("min_digits") || qj["min_digits"].is_null()) continue;
          const std::string name = qj["quantity"];
          e.digits[name] = std::floor(read_digits(qj["min_digits"], path, qat + ".min_digits") * 10) / 10;
          if (!passed_field(qj, path, qat) && !qj.contains("convention")) e.known_failures.insert(name);
        }
      if (r.contains("checks") && r["checks"].is_array())
        for (size_t c = 0; c < r["checks"].size(); ++c) {
          const json& cj = r["checks"][c];
          const std::string cat = rat + ".checks[" + std::to_string(c) + "]";
          if (!cj.is_object()) throw InputError(path, cat, "expected an object");
          const std::string name = string_field(cj, "name", path, cat);
          if (!passed_field(cj, path, cat) && !cj.contains("convention") && !name.empty()) e.known_failures.insert(name);
        }
      if (r.contains("sample_failures") && r["sample_failures"].is_array() && !r["sample_failures"].empty())
        e.known_failures.insert("samples");
      if (r.contains("model_echo") && r["model_echo"].is_object() &&
          string_field(r["model_echo"], "status", path, rat + ".model_echo") == "differs")
        e.known_failures.insert("model_echo");
    }
    b.entries.push_back(std::move(e));
  }
  return b;
}

}  // namespace

bool entry_applies(const BaselineEntry& e, const RunIdentity& id) {
  return (e.model_sha256.empty() || e.model_sha256 == id.model_sha256) && (e.samples == 0 || e.samples == id.samples) &&
         (!e.seed || *e.seed == id.seed);
}

const BaselineEntry* Baseline::find(const std::string& engine, const std::string& model) const {
  for (const BaselineEntry& e : entries)
    if (e.engine == engine && e.model == model) return &e;
  return nullptr;
}

Baseline read_baseline(const std::string& path) {
  const json doc = read_json_file(path);
  if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string())
    throw InputError(path, "format", "expected \"rbdref.baseline\" (or a previous audit's \"rbdref.audit\")");
  if (doc["format"] == "rbdref.baseline") return from_baseline(doc, path);
  if (doc["format"] == "rbdref.audit") return from_audit(doc, path);
  throw InputError(path, "format", "expected \"rbdref.baseline\" (or a previous audit's \"rbdref.audit\"), got " + doc["format"].dump());
}

std::set<std::string> report_failures(const Report& r) {
  std::set<std::string> out;
  for (const QuantityScore& q : r.quantities)
    if (q.samples > 0 && !q.passed && q.convention.empty()) out.insert(q.quantity);
  for (const SampleCheck& c : r.checks)
    if (!c.result.passed && c.convention.empty()) out.insert(c.result.name);
  if (!r.sample_failures.empty()) out.insert("samples");
  if (r.model_echo.is_object() && r.model_echo.value("status", "") == "differs") out.insert("model_echo");
  return out;
}

BaselineEntry baseline_entry(const AuditRun& run) {
  BaselineEntry e;
  e.engine = run.engine;
  e.model = run.model;
  e.status = run.status;
  e.diagnosis = run.diagnosis;
  e.model_sha256 = run.identity.model_sha256;
  e.samples = run.identity.samples;
  if (run.identity.samples > 0) e.seed = run.identity.seed;
  if (run.status == RunStatus::EngineFailed) {
    e.known_failures.insert("engine");
    if (e.diagnosis.empty()) e.diagnosis = "the engine failed: " + run.reason;
  }
  if (run.report) {
    for (const QuantityScore& q : run.report->quantities)
      if (q.samples > 0) e.digits[q.quantity] = std::floor(q.min_digits * 10) / 10;
    e.known_failures = report_failures(*run.report);
  }
  return e;
}

ojson baseline_to_json(const std::vector<BaselineEntry>& entries, double margin) {
  ojson doc;
  doc["format"] = "rbdref.baseline";
  doc["version"] = 1;
  doc["margin_digits"] = margin;
  doc["about"] = "Known results of rbdref audit, per engine × model: the smallest digits of each quantity (rounded down to 0.1) "
                 "and the failures that are known. `rbdref audit --baseline FILE` fails on a loss of more than margin_digits, "
                 "or a failure not listed here. Edit by hand: lower a digit, add a reason, remove an entry to judge it by "
                 "tolerance again (docs/reports.md).";
  ojson runs = ojson::array();
  for (const BaselineEntry& e : entries) {
    ojson j;
    j["engine"] = e.engine;
    j["model"] = e.model;
    j["status"] = to_string(e.status);
    if (!e.model_sha256.empty()) j["model_sha256"] = e.model_sha256;
    if (e.samples > 0) j["samples"] = e.samples;
    if (e.seed) j["seed"] = *e.seed;
    ojson d = ojson::object();
    for (const auto& [q, v] : e.digits) d[q] = v;
    if (!e.digits.empty()) j["digits"] = d;
    if (!e.known_failures.empty()) j["known_failures"] = e.known_failures;
    if (!e.diagnosis.empty() && e.diagnosis != "none") j["diagnosis"] = e.diagnosis;
    if (!e.reason.empty()) j["reason"] = e.reason;
    if (e.margin >= 0) j["margin_digits"] = e.margin;
    runs.push_back(j);
  }
  doc["runs"] = runs;
  return doc;
}

namespace {

// Without an entry that applies, what would be regressions are findings (baseline.hpp).
BaselineVerdict& as_findings(BaselineVerdict& v) {
  const std::string tail = ", not a known failure of the baseline";
  for (std::string& x : v.regressions) {
    if (x.size() > tail.size() && x.compare(x.size() - tail.size(), tail.size(), tail) == 0) x.erase(x.size() - tail.size());
    v.findings.push_back(x + " (no baseline entry applies)");
  }
  v.regressions.clear();
  return v;
}

}  // namespace

BaselineVerdict judge(const Baseline& b, const AuditRun& run) {
  BaselineVerdict v;
  v.engine = run.engine;
  v.model = run.model;
  const BaselineEntry* e = b.find(run.engine, run.model);
  if (e && !entry_applies(*e, run.identity)) {
    v.other_entry = "the baseline's entry for " + run.engine + " × " + run.model + " was recorded on another model or fixture (" +
                    (e->model_sha256.empty() ? std::string("") : "model " + e->model_sha256.substr(0, 12) + "…, ") +
                    (e->samples ? std::to_string(e->samples) + " samples, " : "") + (e->seed ? "seed " + std::to_string(*e->seed) : "") +
                    "; this run: model " + run.identity.model_sha256.substr(0, 12) + "…, " + std::to_string(run.identity.samples) +
                    " samples, seed " + std::to_string(run.identity.seed) + ")";
    e = nullptr;
  }
  v.in_baseline = e != nullptr;
  const double m = e && e->margin >= 0 ? e->margin : b.margin;
  v.reason = e ? e->reason : "";
  const std::string why = e && !e->reason.empty() ? " (" + e->reason + ")" : "";
  if (run.status == RunStatus::Unsupported || run.status == RunStatus::Refused) return v;
  if (run.status == RunStatus::EngineFailed) {
    if (e && e->status == RunStatus::EngineFailed) v.known.push_back("the engine failed, as in the baseline" + why), v.known_names.insert("engine");
    else v.regressions.push_back("the engine failed: " + run.reason);
    return e ? v : as_findings(v);
  }
  if (!run.report) return v;
  const Report& r = *run.report;
  const std::set<std::string> failing = report_failures(r);
  for (const QuantityScore& q : r.quantities) {
    if (q.samples == 0) continue;
    const bool fails = failing.count(q.quantity) > 0;
    const auto d = e ? e->digits.find(q.quantity) : std::map<std::string, double>::const_iterator();
    const bool has_d = e && d != e->digits.end();
    if (has_d && q.min_digits < d->second - m) {
      v.regressions.push_back(q.quantity + ": " + d1(q.min_digits) + " digits, the baseline has " + d1(d->second) + " (margin " + d1(m) +
                              ")" + (fails ? "" : ", still inside tolerance"));
      continue;
    }
    const bool known = e && e->known_failures.count(q.quantity);
    if (fails && !known) {
      v.regressions.push_back(q.quantity + ": outside tolerance (" + d1(q.min_digits) + " digits, worst sample " + q.worst_sample +
                              "), not a known failure of the baseline");
    } else if (fails) {
      v.known.push_back(q.quantity + ": " + d1(q.min_digits) + " digits (baseline " + (has_d ? d1(d->second) : "-") + ")");
      v.known_names.insert(q.quantity);
    } else if (known) {
      v.improvements.push_back(q.quantity + ": now inside tolerance (" + d1(q.min_digits) + " digits); the baseline lists it as known");
    } else if (has_d && q.min_digits > d->second + m) {
      v.improvements.push_back(q.quantity + ": " + d1(q.min_digits) + " digits, the baseline has " + d1(d->second));
    }
  }
  for (const std::string& n : failing) {
    bool is_quantity = false;
    for (const QuantityScore& q : r.quantities) is_quantity = is_quantity || q.quantity == n;
    if (is_quantity) continue;
    if (e && e->known_failures.count(n)) {
      v.known.push_back(n + ": fails, as in the baseline");
      v.known_names.insert(n);
    } else {
      v.regressions.push_back(n + (n == "model_echo" ? ": the engine's model differs from the fixture's"
                                   : n == "samples"  ? ": engine samples failed or ran another state"
                                                     : ": the check fails") +
                              ", not a known failure of the baseline");
    }
  }
  if (e)
    for (const std::string& n : e->known_failures)
      if (!failing.count(n) && n != "engine") {
        bool listed = false;
        for (const std::string& s : v.improvements) listed = listed || s.rfind(n + ":", 0) == 0;
        if (!listed) v.improvements.push_back(n + ": passes now; the baseline lists it as known");
      }
  return e ? v : as_findings(v);
}

}  // namespace rbd
