// The check of an audit document before `rbdref html` makes its page (html_report.hpp,
// validate_audit): every field the page reads, for type and range, in the order header, models,
// reports, runs (a run names a model and a report); the first bad field is the InputError.
#include "io/io_util.hpp"
#include "reports/html_report.hpp"
#include "reports/html_report_parts.hpp"
#include "reports/run_status.hpp"

#include <set>

namespace rbd {

namespace {

using html_report::field;
using html_report::ojson;
using html_report::str;

// The fields of audit.json, each checked for type and range (InputError naming the file, the field
// path and what was expected). A field the writer always writes and the page needs is required; one
// the page can do without is optional, but checked when present. Numbers the writer can produce as
// NaN or infinity (an error with no reference) are null in the file and non-finite in a document
// not read from a file: both read as "no value".
struct AuditFields {
  const std::string& file;

  static std::string shown(const ojson& j) {
    std::string t = j.dump();
    return t.size() > 80 ? t.substr(0, 77) + "..." : t;
  }
  [[noreturn]] void bad(const std::string& at, const std::string& expected, const ojson* got) const {
    throw InputError(file, at, expected + (got ? ", got " + shown(*got) : std::string(" (missing field)")));
  }
  const ojson* get(const ojson& obj, const char* key) const { return obj.is_object() && obj.contains(key) ? &obj[key] : nullptr; }

  // A string; `what` says what it is. Empty strings refused when nonempty.
  std::string text(const ojson& obj, const char* key, const std::string& at, bool required, bool nonempty, const std::string& what) const {
    const ojson* j = get(obj, key);
    const std::string p = at + (at.empty() ? "" : ".") + key;
    if (!j) {
      if (required) bad(p, "expected " + what, nullptr);
      return "";
    }
    if (!j->is_string() || (nonempty && j->get<std::string>().empty())) bad(p, "expected " + what, j);
    return j->get<std::string>();
  }
  // One of `allowed` (a string).
  void one_of(const ojson& obj, const char* key, const std::string& at, bool required, const std::set<std::string>& allowed,
              const std::string& what) const {
    const ojson* j = get(obj, key);
    if (!j && !required) return;
    if (!j || !j->is_string() || !allowed.count(j->get<std::string>())) bad(at + "." + key, "expected " + what, j);
  }
  void boolean(const ojson& obj, const char* key, const std::string& at, bool required) const {
    const ojson* j = get(obj, key);
    if (!j && !required) return;
    if (!j || !j->is_boolean()) bad(at + (at.empty() ? "" : ".") + key, "expected true or false", j);
  }
  // A number in [lo, hi], or null (no value) when nullable; a non-finite number is null.
  void number(const ojson& obj, const char* key, const std::string& at, bool required, bool nullable, double lo, double hi,
              const std::string& what) const {
    const ojson* j = get(obj, key);
    const std::string p = at + (at.empty() ? "" : ".") + key;
    if (!j) {
      if (required) bad(p, "expected " + what, nullptr);
      return;
    }
    const bool none = j->is_null() || (j->is_number() && !std::isfinite(j->get<double>()));
    if (none ? !nullable : !j->is_number() || !(j->get<double>() >= lo && j->get<double>() <= hi)) bad(p, "expected " + what, j);
  }
  // An array (of strings when strings), or nullptr when absent and optional.
  const ojson* array(const ojson& obj, const char* key, const std::string& at, bool required, bool strings, const std::string& what) const {
    const ojson* j = get(obj, key);
    const std::string p = at + (at.empty() ? "" : ".") + key;
    if (!j) {
      if (required) bad(p, "expected " + what, nullptr);
      return nullptr;
    }
    if (!j->is_array()) bad(p, "expected " + what, j);
    if (strings)
      for (size_t i = 0; i < j->size(); ++i)
        if (!(*j)[i].is_string()) bad(p + "[" + std::to_string(i) + "]", "expected a string", &(*j)[i]);
    return j;
  }
  // An object, or nullptr when absent (and optional) or null (and nullable).
  const ojson* object(const ojson& obj, const char* key, const std::string& at, bool required, bool nullable, const std::string& what) const {
    const ojson* j = get(obj, key);
    const std::string p = at + (at.empty() ? "" : ".") + key;
    if (!j) {
      if (required) bad(p, "expected " + what, nullptr);
      return nullptr;
    }
    if (j->is_null() && nullable) return nullptr;
    if (!j->is_object()) bad(p, "expected " + what, j);
    return j;
  }
};

constexpr double kNoLimit = std::numeric_limits<double>::max();

// A report of audit.json's reports[] (reports/report_writers.cpp, report_to_json): the fields the page reads.
void validate_report(const AuditFields& a, const ojson& r, const std::string& at) {
  if (!r.is_object() || !field(r, "quantities").is_array() || !field(r, "samples").is_array())
    throw InputError(a.file, at, "expected a report with quantities and samples arrays");
  const ojson& eng = *a.object(r, "engine", at, true, false, "an object with the engine's name");
  a.text(eng, "name", at + ".engine", true, true, "the engine's name, a non-empty string");
  for (const char* k : {"version", "scalar", "import_path"}) a.text(eng, k, at + ".engine", false, false, "a string");
  const ojson& model = *a.object(r, "model", at, true, false, "an object with the model's name");
  a.text(model, "name", at + ".model", true, false, "the model's name, a string");
  const std::string sha = a.text(model, "sha256", at + ".model", false, false, "the model's SHA-256, 64 lowercase hexadecimal digits");
  if (model.contains("sha256") && (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos))
    a.bad(at + ".model.sha256", "expected the model's SHA-256, 64 lowercase hexadecimal digits", &model["sha256"]);
  if (const ojson* echo = a.object(r, "model_echo", at, false, true, "an object (the engine's model read back) or null")) {
    const std::string e = at + ".model_echo";
    a.one_of(*echo, "status", e, false, {"match", "differs"}, "\"match\" or \"differs\"");
    if (const ojson* mx = a.object(*echo, "max", e, false, false, "an object of the largest errors"))
      for (auto it = mx->begin(); it != mx->end(); ++it) a.number(*mx, it.key().c_str(), e + ".max", true, true, 0, kNoLimit, "an error ≥ 0 or null");
    if (const ojson* tol = a.object(*echo, "tolerance", e, false, false, "an object with the tolerance's rule"))
      a.text(*tol, "rule", e + ".tolerance", false, false, "a string");
  }
  const ojson& qs = r["quantities"];
  for (size_t i = 0; i < qs.size(); ++i) {
    const std::string q = at + ".quantities[" + std::to_string(i) + "]";
    if (!qs[i].is_object()) a.bad(q, "expected an object (a quantity's score)", &qs[i]);
    a.text(qs[i], "quantity", q, true, true, "the quantity's name, a non-empty string");
    a.number(qs[i], "samples", q, true, false, 0, 1e9, "the number of samples scored, an integer ≥ 0");
    if (!qs[i]["samples"].is_number_integer()) a.bad(q + ".samples", "expected the number of samples scored, an integer ≥ 0", &qs[i]["samples"]);
    a.number(qs[i], "min_digits", q, true, true, 0, kNoLimit, "digits ≥ 0, or null (not scored)");
    a.number(qs[i], "cap", q, true, true, 0, kNoLimit, "digits ≥ 0, or null (not scored)");
    a.number(qs[i], "max_rel_err", q, true, true, 0, kNoLimit, "a relative error ≥ 0, or null (not scored)");
    a.number(qs[i], "tolerance", q, true, true, 0, kNoLimit, "a tolerance ≥ 0, or null (not scored)");
    a.text(qs[i], "rule", q, true, false, "the tolerance's rule, a string");
    a.boolean(qs[i], "passed", q, true);
    a.text(qs[i], "convention", q, false, false, "a string");
    a.one_of(qs[i], "cap_kind", q, false, {"proven", "estimated", "mixed"}, "\"proven\", \"estimated\" or \"mixed\"");
    if (const ojson* w = a.object(qs[i], "worst", q, true, true, "an object with the worst sample, or null (not scored)"))
      a.text(*w, "sample", q + ".worst", true, false, "the worst sample's id, a string");
  }
  const ojson& ss = r["samples"];
  for (size_t i = 0; i < ss.size(); ++i) {
    const std::string s = at + ".samples[" + std::to_string(i) + "]";
    if (!ss[i].is_object()) a.bad(s, "expected an object (a sample's score)", &ss[i]);
    a.text(ss[i], "sample", s, true, true, "the sample's id, a non-empty string");
    a.text(ss[i], "quantity", s, true, true, "the quantity's name, a non-empty string");
    a.number(ss[i], "digits", s, true, true, 0, kNoLimit, "digits ≥ 0, or null");
    a.number(ss[i], "rel_err", s, true, true, 0, kNoLimit, "a relative error ≥ 0, or null");
    a.number(ss[i], "tolerance", s, true, true, 0, kNoLimit, "a tolerance ≥ 0, or null");
    if (const ojson* e = a.array(ss[i], "worst_entry", s, false, false, "[row, column], two integers ≥ 0"))
      if (e->size() != 2 || !(*e)[0].is_number_integer() || !(*e)[1].is_number_integer() || (*e)[0].get<long long>() < 0 ||
          (*e)[1].get<long long>() < 0)
        a.bad(s + ".worst_entry", "expected [row, column], two integers ≥ 0", e);
    a.text(ss[i], "reference", s, true, false, "the reference value, a decimal string");
    a.text(ss[i], "engine", s, true, false, "the engine's value, a decimal string");
    a.boolean(ss[i], "passed", s, true);
    a.text(ss[i], "convention", s, false, false, "a string");
  }
  if (const ojson* cs = a.array(r, "checks", at, false, false, "an array of checks")) {
    for (size_t i = 0; i < cs->size(); ++i) {
      const ojson& c = (*cs)[i];
      const std::string p = at + ".checks[" + std::to_string(i) + "]";
      if (!c.is_object()) a.bad(p, "expected an object (a check of one sample)", &c);
      a.text(c, "sample", p, true, false, "the sample's id, a string");
      a.text(c, "name", p, true, true, "the check's name, a non-empty string");
      a.boolean(c, "passed", p, true);
      a.number(c, "residual", p, true, true, -kNoLimit, kNoLimit, "a number or null");
      a.number(c, "tolerance", p, true, true, 0, kNoLimit, "a tolerance ≥ 0, or null");
      a.text(c, "convention", p, false, false, "a string");
    }
  }
  a.array(r, "notes", at, false, true, "an array of strings");
}

// format, version, the three arrays, passed and the baseline's summary.
void validate_header(const AuditFields& a, const ojson& audit) {
  const std::string& file = a.file;
  if (!audit.is_object() || str(audit, "format") != "rbdref.audit") throw InputError(file, "format", "expected \"rbdref.audit\"");
  const ojson& version = field(audit, "version");
  if (!version.is_number_integer() || version.get<long long>() != 1)
    throw InputError(file, "version", "expected 1" + (version.is_null() ? std::string(" (missing field)") : ", got " + version.dump()));
  if (!field(audit, "runs").is_array()) throw InputError(file, "runs", "expected an array");
  if (!field(audit, "reports").is_array()) throw InputError(file, "reports", "expected an array");
  if (!field(audit, "models").is_array()) throw InputError(file, "models", "expected an array of the audited models");
  a.boolean(audit, "passed", "", true);
  const ojson& baseline = field(audit, "baseline");
  if (!baseline.is_null() && (!baseline.is_object() || !field(baseline, "regressed").is_boolean()))
    throw InputError(file, "baseline", "expected an object with regressed true or false");
  if (baseline.is_object()) {
    a.text(baseline, "file", "baseline", false, false, "the baseline's file, a string");
    a.number(baseline, "margin_digits", "baseline", false, false, 0, 100, "a margin in digits from 0 to 100");
  }
}

// The models' names, which the runs must name, and the first eight of them for a message.
struct ModelNames {
  std::set<std::string> names;
  std::string list;
};

// Each model: a unique non-empty name, its samples (unique ids, a known kind, κ₂(H)).
ModelNames validate_models(const AuditFields& a, const ojson& models) {
  const std::string& file = a.file;
  static const std::set<std::string> kKinds{"home", "near_singular", "random", "at_rest", "in_contact"};
  ModelNames out;
  for (size_t k = 0; k < models.size(); ++k) {
    const std::string at = "models[" + std::to_string(k) + "]";
    if (!models[k].is_object() || !field(models[k], "name").is_string()) throw InputError(file, at + ".name", "expected a string");
    const std::string name = a.text(models[k], "name", at, true, true, "the model's name, a non-empty string");
    if (!out.names.insert(name).second) a.bad(at + ".name", "expected one entry per model, a second entry for it", &models[k]["name"]);
    if (out.names.size() <= 8) out.list += (out.list.empty() ? "" : ", ") + name;
    const ojson& samples = field(models[k], "samples");
    if (!samples.is_array()) throw InputError(file, at + ".samples", "expected an array");
    std::set<std::string> ids;
    for (size_t i = 0; i < samples.size(); ++i) {
      const std::string sat = at + ".samples[" + std::to_string(i) + "]";
      if (!field(samples[i], "id").is_string()) throw InputError(file, sat + ".id", "expected a string");
      const std::string id = a.text(samples[i], "id", sat, true, true, "the sample's id, a non-empty string");
      if (!ids.insert(id).second) a.bad(sat + ".id", "expected each sample once, a second sample", &samples[i]["id"]);
      a.one_of(samples[i], "kind", sat, true, kKinds, "\"home\", \"near_singular\", \"random\", \"at_rest\" or \"in_contact\"");
      // κ₂(H) as audit/write.cpp writes it: a number, or "inf" where H is singular (JSON has no infinity).
      const ojson& kappa = field(samples[i], "kappa");
      const bool ok = (kappa.is_number() && std::isfinite(kappa.get<double>()) && kappa.get<double>() >= 1) ||
                      (kappa.is_string() && kappa.get<std::string>() == "inf");
      if (!ok) throw InputError(file, sat + ".kappa", "expected κ₂(H), a number ≥ 1, or \"inf\" for a singular H, got " + kappa.dump());
    }
  }
  return out;
}

// Each run: engine, a listed model, one run per engine × model, a run status, its report (of its
// engine) when it gives one, and its baseline verdict.
void validate_runs(const AuditFields& a, const ojson& runs, const ojson& reports, const ModelNames& models) {
  const std::string& file = a.file;
  static const std::set<std::string> kBaselineStatus = [] {
    std::set<std::string> s;
    for (const auto& [status, spelling] : kBaselineStatusSpellings) s.insert(spelling);
    return s;
  }();
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string at = "runs[" + std::to_string(k) + "]";
    for (const char* key : {"engine", "model", "status"})
      if (!runs[k].is_object() || !runs[k].contains(key) || !runs[k][key].is_string()) throw InputError(file, at + "." + key, "expected a string");
    const std::string engine = a.text(runs[k], "engine", at, true, true, "the engine's name, a non-empty string");
    const std::string model = a.text(runs[k], "model", at, true, true, "the model's name, a non-empty string");
    if (!models.names.count(model))
      a.bad(at + ".model", "expected one of the models listed in models (" + (models.list.empty() ? "none" : models.list) +
                               (models.names.size() > 8 ? ", ..." : "") + ")",
            &runs[k]["model"]);
    if (!seen.insert({engine, model}).second) throw InputError(file, at, "a second run of " + engine + " × " + model + " (one per engine × model)");
    if (!parse_run_status(runs[k]["status"].get<std::string>()))
      throw InputError(file, at + ".status",
                       "expected " +
                           spell_list({RunStatus::Passed, RunStatus::Failed, RunStatus::EngineFailed, RunStatus::Unsupported,
                                       RunStatus::Refused, RunStatus::NotAvailable},
                                      " or ") +
                           ", got " + runs[k]["status"].dump());
    if (runs[k].contains("report_index")) {
      const ojson& i = runs[k]["report_index"];
      if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= reports.size())
        throw InputError(file, at + ".report_index",
                         "expected the index of a report, an integer from 0 to " + std::to_string(reports.size()) + " - 1, got " + i.dump());
      const std::string of = reports[i.get<std::size_t>()]["engine"]["name"].get<std::string>();
      if (of != engine)
        throw InputError(file, at + ".report_index",
                         "expected the index of a report of " + engine + ", got " + i.dump() + " (a report of " + of + ")");
    }
    a.text(runs[k], "reason", at, false, false, "a string");
    a.text(runs[k], "diagnosis", at, false, false, "a string");
    const ojson& b = field(runs[k], "baseline");
    if (!b.is_null() && (!b.is_object() || !field(b, "status").is_string()))
      throw InputError(file, at + ".baseline", "expected an object with a status");
    if (b.is_object()) {
      a.one_of(b, "status", at + ".baseline", true, kBaselineStatus,
               spell_list({BaselineStatus::Matches, BaselineStatus::Known, BaselineStatus::Regressed, BaselineStatus::NotInBaseline}, " or ",
                          true));
      for (const char* key : {"regressions", "known", "improvements", "findings"}) a.array(b, key, at + ".baseline", false, true, "an array of strings");
      a.text(b, "reason", at + ".baseline", false, false, "a string");
      a.text(b, "other_entry", at + ".baseline", false, false, "a string");
    }
  }
}

}  // namespace

void validate_audit(const ojson& audit, const std::string& file) {
  const AuditFields a{file};
  validate_header(a, audit);
  const ModelNames models = validate_models(a, audit["models"]);
  const ojson& reports = audit["reports"];
  for (size_t k = 0; k < reports.size(); ++k) validate_report(a, reports[k], "reports[" + std::to_string(k) + "]");
  validate_runs(a, audit["runs"], reports, models);
}

}  // namespace rbd
