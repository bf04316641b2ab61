// The audit's self-contained HTML report (html_report.hpp).
#include "reports/html_report.hpp"

#include "io/io_util.hpp"
#include "io/xml_escape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace rbd {

namespace {

using ojson = nlohmann::ordered_json;


// Tolerant readers: a field of the wrong type reads as absent (the audit writes these documents;
// `rbdref html` checks the structure it needs before this).
std::string str(const ojson& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
double num(const ojson& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}
bool flag(const ojson& j, const char* key, bool dflt) { return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : dflt; }
// The cap cell's tooltip: which digits the cap is (compare's cap_kind; absent in older reports).
std::string cap_title(const ojson& q) {
  const std::string k = str(q, "cap_kind");
  if (k == "proven") return " title=\"the reference's proven digits (fixture --prove): an interval enclosure\"";
  if (k == "mixed") return " title=\"proven digits in some samples, estimated (two precisions) in the others\"";
  if (k == "estimated") return " title=\"the reference's estimated digits: two precisions agree\"";
  return "";
}

const ojson& field(const ojson& j, const char* key) {
  static const ojson null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

std::string fmt(const char* f, double x) {
  if (std::isnan(x)) return "–";
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

// Background colour of a cell with d digits: red (0) through yellow (8) to green (15 and more).
std::string digits_colour(double d) {
  if (std::isnan(d)) return "#eee";
  const double t = std::clamp(d / 15.0, 0.0, 1.0);
  return "hsl(" + fmt("%.0f", 120 * t) + ",70%," + fmt("%.0f", 80 - 10 * t) + "%)";
}

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                          "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#843c39"};

struct Point {
  double x, y;
  bool failed;
  std::string label;
};

// A scatter/line chart as inline SVG: series of points; y is digits (clamped to y_max, drawn with
// a caret when above), x either sample indices (labels under the axis) or a value (log10 κ).
std::string svg_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_ticks,
                      const std::vector<std::pair<std::string, std::vector<Point>>>& series, bool lines) {
  const double W = 660, H = 260, L = 46, R = 120, T = 26, B = 44;
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_max = 17;
  for (const auto& s : series)
    for (const Point& p : s.second) {
      if (!std::isfinite(p.x)) continue;
      x_min = std::min(x_min, p.x), x_max = std::max(x_max, p.x);
    }
  if (!std::isfinite(x_min)) x_min = 0, x_max = 1;
  if (x_max - x_min < 1e-9) x_min -= 0.5, x_max += 0.5;
  auto X = [&](double x) { return L + (x - x_min) / (x_max - x_min) * (W - L - R); };
  auto Y = [&](double y) { return T + (1 - std::clamp(y, 0.0, y_max) / y_max) * (H - T - B); };
  std::ostringstream s;
  s << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " "
    << H << "\" role=\"img\" aria-label=\"" << xml_escape(title) << "\">\n";
  s << "<text x=\"" << L << "\" y=\"16\" class=\"ct\">" << xml_escape(title) << "</text>\n";
  for (int d = 0; d <= 16; d += 4) {
    s << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << Y(d) << "\" y2=\"" << Y(d) << "\" class=\"grid\"/>"
      << "<text x=\"" << L - 6 << "\" y=\"" << Y(d) + 4 << "\" class=\"yt\">" << d << "</text>\n";
  }
  s << "<text x=\"12\" y=\"" << (T + H - B) / 2 << "\" class=\"al\" transform=\"rotate(-90 12 " << (T + H - B) / 2 << ")\">digits</text>\n";
  if (!x_ticks.empty()) {
    for (size_t k = 0; k < x_ticks.size(); ++k)
      s << "<text x=\"" << X(static_cast<double>(k)) << "\" y=\"" << H - B + 16 << "\" class=\"xt\">" << xml_escape(x_ticks[k]) << "</text>\n";
  } else {
    // Ticks at a 1, 2 or 5 × 10^k step, about five of them.
    const double raw = (x_max - x_min) / 5, p10 = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / p10 < 1.5 ? p10 : raw / p10 < 3.5 ? 2 * p10 : raw / p10 < 7.5 ? 5 * p10 : 10 * p10;
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step))));
    const std::string f = "%." + std::to_string(decimals) + "f";
    for (double v = std::ceil(x_min / step) * step; v <= x_max + 1e-9 * step; v += step)
      s << "<text x=\"" << X(v) << "\" y=\"" << H - B + 16 << "\" class=\"xt\">" << fmt(f.c_str(), v) << "</text>\n";
  }
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 8 << "\" class=\"al\">" << xml_escape(x_label) << "</text>\n";
  for (size_t si = 0; si < series.size(); ++si) {
    const std::string c = kPalette[si % (sizeof kPalette / sizeof *kPalette)];
    const auto& pts = series[si].second;
    if (lines && pts.size() > 1) {
      s << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"1.5\" points=\"";
      for (const Point& p : pts)
        if (std::isfinite(p.x) && std::isfinite(p.y)) s << fmt("%.1f", X(p.x)) << "," << fmt("%.1f", Y(p.y)) << " ";
      s << "\"/>\n";
    }
    for (const Point& p : pts) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      s << "<circle cx=\"" << fmt("%.1f", X(p.x)) << "\" cy=\"" << fmt("%.1f", Y(p.y)) << "\" r=\"" << (p.failed ? 4.5 : 3)
        << "\" fill=\"" << c << "\"" << (p.failed ? " stroke=\"#000\" stroke-width=\"1.5\"" : "") << "><title>" << xml_escape(series[si].first)
        << " " << xml_escape(p.label) << ": " << fmt("%.1f", p.y) << " digits" << (p.y > y_max ? " (above the axis)" : "")
        << (p.failed ? ", outside tolerance" : "") << "</title></circle>\n";
    }
    s << "<rect x=\"" << W - R + 10 << "\" y=\"" << T + 14 * si << "\" width=\"10\" height=\"10\" fill=\"" << c << "\"/>"
      << "<text x=\"" << W - R + 24 << "\" y=\"" << T + 9 + 14 * si << "\" class=\"lg\">" << xml_escape(series[si].first) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

struct ModelInfo {
  std::vector<std::string> ids, kinds;
  std::map<std::string, double> log_kappa;  // sample id -> log10 κ₂(H)
};

}  // namespace

namespace {

// The fields of audit.json, each checked for type and range (InputError naming the file, the field
// path and what was expected). A field the writer always writes and the page needs is required; one
// the page can do without is optional, but checked when present. Numbers the writer can produce as
// NaN or infinity (an error with no reference) are null in the file and non-finite in the audit's
// own document (audit/write.cpp renders the page before writing): both read as "no value".
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

}  // namespace

// The structure the page is made from, every field it reads checked for type and range
// (InputError naming the file, the field and what was expected): the audit writes these
// documents, but `rbdref html` is also given ones edited or damaged by hand.
void validate_audit(const ojson& audit, const std::string& file) {
  if (!audit.is_object() || str(audit, "format") != "rbdref.audit") throw InputError(file, "format", "expected \"rbdref.audit\"");
  const ojson& version = field(audit, "version");
  if (!version.is_number_integer() || version.get<long long>() != 1)
    throw InputError(file, "version", "expected 1" + (version.is_null() ? std::string(" (missing field)") : ", got " + version.dump()));
  const AuditFields a{file};
  const ojson& runs = field(audit, "runs");
  const ojson& reports = field(audit, "reports");
  const ojson& models = field(audit, "models");
  if (!runs.is_array()) throw InputError(file, "runs", "expected an array");
  if (!reports.is_array()) throw InputError(file, "reports", "expected an array");
  if (!models.is_array()) throw InputError(file, "models", "expected an array of the audited models");
  a.boolean(audit, "passed", "", true);
  const ojson& baseline = field(audit, "baseline");
  if (!baseline.is_null() && (!baseline.is_object() || !field(baseline, "regressed").is_boolean()))
    throw InputError(file, "baseline", "expected an object with regressed true or false");
  if (baseline.is_object()) {
    a.text(baseline, "file", "baseline", false, false, "the baseline's file, a string");
    a.number(baseline, "margin_digits", "baseline", false, false, 0, 100, "a margin in digits from 0 to 100");
  }
  // The models first: every run names one of them.
  static const std::set<std::string> kKinds{"home", "near_singular", "random", "at_rest", "in_contact"};
  std::set<std::string> model_names;
  std::string model_list;
  for (size_t k = 0; k < models.size(); ++k) {
    const std::string at = "models[" + std::to_string(k) + "]";
    if (!models[k].is_object() || !field(models[k], "name").is_string()) throw InputError(file, at + ".name", "expected a string");
    const std::string name = a.text(models[k], "name", at, true, true, "the model's name, a non-empty string");
    if (!model_names.insert(name).second) a.bad(at + ".name", "expected one entry per model, a second entry for it", &models[k]["name"]);
    if (model_names.size() <= 8) model_list += (model_list.empty() ? "" : ", ") + name;
    const ojson& samples = field(models[k], "samples");
    if (!samples.is_array()) throw InputError(file, at + ".samples", "expected an array");
    std::set<std::string> ids;
    for (size_t i = 0; i < samples.size(); ++i) {
      const std::string sat = at + ".samples[" + std::to_string(i) + "]";
      if (!field(samples[i], "id").is_string()) throw InputError(file, sat + ".id", "expected a string");
      const std::string id = a.text(samples[i], "id", sat, true, true, "the sample's id, a non-empty string");
      if (!ids.insert(id).second) a.bad(sat + ".id", "expected each sample once, a second sample", &samples[i]["id"]);
      a.one_of(samples[i], "kind", sat, true, kKinds, "\"home\", \"near_singular\", \"random\", \"at_rest\" or \"in_contact\"");
      // κ₂(H) as audit/run.cpp writes it: a number, or "inf" where H is singular (JSON has no infinity).
      const ojson& kappa = field(samples[i], "kappa");
      const bool ok = (kappa.is_number() && std::isfinite(kappa.get<double>()) && kappa.get<double>() >= 1) ||
                      (kappa.is_string() && kappa.get<std::string>() == "inf");
      if (!ok) throw InputError(file, sat + ".kappa", "expected κ₂(H), a number ≥ 1, or \"inf\" for a singular H, got " + kappa.dump());
    }
  }
  for (size_t k = 0; k < reports.size(); ++k) validate_report(a, reports[k], "reports[" + std::to_string(k) + "]");
  static const std::set<std::string> kStatus{"passed", "failed", "engine failed", "unsupported", "refused", "not available"};
  static const std::set<std::string> kBaselineStatus{"matches", "known", "regressed", "not in baseline"};
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string at = "runs[" + std::to_string(k) + "]";
    for (const char* key : {"engine", "model", "status"})
      if (!runs[k].is_object() || !runs[k].contains(key) || !runs[k][key].is_string()) throw InputError(file, at + "." + key, "expected a string");
    const std::string engine = a.text(runs[k], "engine", at, true, true, "the engine's name, a non-empty string");
    const std::string model = a.text(runs[k], "model", at, true, true, "the model's name, a non-empty string");
    if (!model_names.count(model))
      a.bad(at + ".model", "expected one of the models listed in models (" + (model_list.empty() ? "none" : model_list) +
                               (model_names.size() > 8 ? ", ..." : "") + ")",
            &runs[k]["model"]);
    if (!seen.insert({engine, model}).second) throw InputError(file, at, "a second run of " + engine + " × " + model + " (one per engine × model)");
    if (!kStatus.count(runs[k]["status"].get<std::string>()))
      throw InputError(file, at + ".status",
                       "expected passed, failed, engine failed, unsupported, refused or not available, got " + runs[k]["status"].dump());
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
      a.one_of(b, "status", at + ".baseline", true, kBaselineStatus, "\"matches\", \"known\", \"regressed\" or \"not in baseline\"");
      for (const char* key : {"regressions", "known", "improvements", "findings"}) a.array(b, key, at + ".baseline", false, true, "an array of strings");
      a.text(b, "reason", at + ".baseline", false, false, "a string");
      a.text(b, "other_entry", at + ".baseline", false, false, "a string");
    }
  }
}

std::string audit_html(const ojson& audit, const std::string& file) {
  validate_audit(audit, file);
  const ojson& runs = field(audit, "runs");
  const ojson& reports = field(audit, "reports");

  std::map<std::string, ModelInfo> models;
  if (field(audit, "models").is_array())
    for (const ojson& m : audit["models"]) {
      ModelInfo& mi = models[str(m, "name")];
      if (field(m, "samples").is_array())
        for (const ojson& s : m["samples"]) {
          mi.ids.push_back(str(s, "id"));
          mi.kinds.push_back(str(s, "kind"));
          const double k = num(s, "kappa");
          if (std::isfinite(k) && k > 0) mi.log_kappa[str(s, "id")] = std::log10(k);
        }
    }

  // The report of each run: by its index when the audit gives one, else by engine × model.
  auto report_of = [&](const ojson& run) -> const ojson* {
    const double idx = num(run, "report_index");
    if (std::isfinite(idx) && idx >= 0 && idx < static_cast<double>(reports.size())) return &reports[static_cast<size_t>(idx)];
    for (const ojson& r : reports)
      if (str(field(r, "engine"), "name") == str(run, "engine") && str(field(r, "model"), "name") == str(run, "model")) return &r;
    return nullptr;
  };

  // The quantities any report scored, in the order they first appear.
  std::vector<std::string> quantities;
  for (const ojson& r : reports)
    for (const ojson& q : r["quantities"])
      if (num(q, "samples") > 0 && std::find(quantities.begin(), quantities.end(), str(q, "quantity")) == quantities.end())
        quantities.push_back(str(q, "quantity"));

  size_t n_failed = 0, n_known = 0, n_passed = 0, n_other = 0;
  for (const ojson& run : runs) {
    const std::string st = str(run, "status"), bl = str(field(run, "baseline"), "status");
    if (st == "passed") ++n_passed;
    else if ((st == "failed" || st == "engine failed") && bl == "known") ++n_known;
    else if (st == "failed" || st == "engine failed") ++n_failed;
    else ++n_other;
  }
  const ojson& baseline = field(audit, "baseline");
  const bool regressed = baseline.is_object() ? flag(baseline, "regressed", true) : !flag(audit, "passed", false);

  // The data the script pivots: per run, the quantity cells.
  ojson data = ojson::array();
  for (const ojson& run : runs) {
    ojson row = {{"engine", str(run, "engine")}, {"model", str(run, "model")}, {"status", str(run, "status")}, {"cells", ojson::object()}};
    if (const ojson* r = report_of(run))
      for (const ojson& q : (*r)["quantities"])
        if (num(q, "samples") > 0)
          row["cells"][str(q, "quantity")] = {{"digits", num(q, "min_digits")}, {"passed", flag(q, "passed", false)},
                                             {"convention", q.contains("convention")}};
    for (const ojson& line : field(field(run, "baseline"), "known"))
      if (line.is_string()) {
        const std::string qn = line.get<std::string>().substr(0, line.get<std::string>().find(':'));
        if (row["cells"].contains(qn)) row["cells"][qn]["known"] = true;
      }
    data.push_back(row);
  }
  std::string data_text = data.dump();
  for (size_t p = 0; (p = data_text.find("</", p)) != std::string::npos; p += 3) data_text.replace(p, 2, "<\\/");

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rbdref audit</title>\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<style>\n"
       "body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}\n"
       "h1{font-size:22px;margin:0 0 6px} h2{font-size:18px;margin:26px 0 8px} h3{font-size:15px;margin:14px 0 6px}\n"
       "table{border-collapse:collapse;margin:6px 0} td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}\n"
       "th{background:#f4f4f4} td.l,th.l{text-align:left} td.na{white-space:normal;max-width:40em}\n"
       ".verdict{font-size:16px;padding:8px 12px;border-radius:4px;display:inline-block}\n"
       ".ok{background:#d9f2d9} .bad{background:#f8d0d0} .known{background:#fbeec4} .na{color:#888}\n"
       ".diag{margin:3px 0} .mono{font-family:ui-monospace,monospace;font-size:12px}\n"
       "details{margin:6px 0;border:1px solid #ddd;border-radius:4px;padding:4px 8px} summary{cursor:pointer;font-weight:600}\n"
       ".chart .grid{stroke:#e3e3e3} .chart text{font-size:11px;fill:#444} .chart .yt{text-anchor:end} .chart .xt{text-anchor:middle}\n"
       ".chart .al{text-anchor:middle;font-size:12px} .chart .ct{font-size:13px;font-weight:600}\n"
       "#script-errors{color:#b00;white-space:pre-wrap}\n"
       "</style>\n</head>\n<body>\n";
  h << "<h1>rbdref audit</h1>\n";
  h << "<p class=\"verdict " << (regressed ? "bad" : n_known ? "known" : "ok") << "\" id=\"verdict\">"
    << (regressed ? "FAILED: discrepancies outside tolerance" : n_known ? "passed, with known discrepancies" : "passed") << " — " << runs.size()
    << " engine × model runs: " << n_passed << " passed, " << n_known << " known, " << n_failed << " failed, " << n_other
    << " not run (unsupported or not available)</p>\n";
  if (baseline.is_object())
    h << "<p>Baseline <span class=\"mono\">" << xml_escape(str(baseline, "file")) << "</span>, margin " << fmt("%.1f", num(baseline, "margin_digits"))
      << " digits: " << (flag(baseline, "regressed", false) ? "<b>regressions</b> (below)" : "no regression") << ".</p>\n";
  h << "<div id=\"script-errors\"></div>\n";

  // Heatmap.
  h << "<h2 id=\"heatmap\">Digits: engine × model × quantity</h2>\n"
       "<p>The smallest number of correct digits over the samples (LRE, capped at the certified digits). "
       "<b>!</b> outside tolerance, <b>~</b> outside tolerance by a convention the engine declares, <b>known</b> a known "
       "discrepancy of the baseline. Hover a cell for its worst sample.</p>\n";
  h << "<table id=\"heatmap-table\"><thead><tr><th class=\"l\">engine</th><th class=\"l\">model</th>";
  for (const std::string& q : quantities) h << "<th>" << xml_escape(q) << "</th>";
  h << "<th class=\"l\">echo</th><th class=\"l\">status</th></tr></thead><tbody>\n";
  for (const ojson& run : runs) {
    const std::string st = str(run, "status"), bl = str(field(run, "baseline"), "status");
    const std::string anchor = "run-" + str(run, "engine") + "-" + str(run, "model");
    h << "<tr><td class=\"l\"><a href=\"#" << xml_escape(anchor) << "\">" << xml_escape(str(run, "engine")) << "</a></td><td class=\"l\">" << xml_escape(str(run, "model"))
      << "</td>";
    const ojson* r = report_of(run);
    if (!r) {
      h << "<td class=\"l na\" colspan=\"" << quantities.size() + 2 << "\">" << xml_escape(st) << ": " << xml_escape(str(run, "reason")) << "</td></tr>\n";
      continue;
    }
    std::set<std::string> known;
    for (const ojson& line : field(field(run, "baseline"), "known"))
      if (line.is_string()) known.insert(line.get<std::string>().substr(0, line.get<std::string>().find(':')));
    for (const std::string& qn : quantities) {
      const ojson* q = nullptr;
      for (const ojson& x : (*r)["quantities"])
        if (str(x, "quantity") == qn && num(x, "samples") > 0) q = &x;
      if (!q) {
        h << "<td class=\"na\">–</td>";
        continue;
      }
      const double d = num(*q, "min_digits");
      const bool passed = flag(*q, "passed", false), conv = q->contains("convention");
      const std::string mark = passed ? "" : known.count(qn) ? " known" : conv ? "~" : "!";
      h << "<td style=\"background:" << digits_colour(d) << "\" title=\"" << xml_escape(qn) << ": worst sample " << xml_escape(str(field(*q, "worst"), "sample"))
        << ", rel err " << fmt("%.3g", num(*q, "max_rel_err")) << ", tolerance " << fmt("%.3g", num(*q, "tolerance")) << " (" << xml_escape(str(*q, "rule"))
        << ")" << (conv ? "; convention: " + xml_escape(str(*q, "convention")) : "") << "\">" << fmt("%.1f", d) << xml_escape(mark) << "</td>";
    }
    const std::string echo = str(field(*r, "model_echo"), "status");
    h << "<td class=\"l\">" << xml_escape(echo.empty() ? "none" : echo) << "</td><td class=\"l "
      << (st == "passed" ? "ok" : bl == "known" ? "known" : "bad") << "\">" << (st == "passed" ? "passed" : bl == "known" ? "known" : "FAILED")
      << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  h << "<h3>One quantity as engine × model</h3>\n<p><label>Quantity <select id=\"pivot-quantity\"></select></label></p>\n"
       "<div id=\"pivot\"></div>\n";

  // Diagnoses.
  h << "<h2 id=\"diagnoses\">Diagnoses</h2>\n";
  size_t n_diag = 0;
  for (const ojson& run : runs) {
    const std::string st = str(run, "status"), d = str(run, "diagnosis"), bl = str(field(run, "baseline"), "status");
    if (st == "passed" && (d.empty() || d == "none")) continue;
    if (st == "unsupported" || st == "not available") continue;
    ++n_diag;
    const std::string cls = st == "passed" ? "ok" : bl == "known" ? "known" : "bad";
    h << "<p class=\"diag\"><span class=\"verdict " << cls << "\">" << xml_escape(str(run, "engine")) << " × " << xml_escape(str(run, "model")) << "</span> "
      << xml_escape(d.empty() ? str(run, "reason") : d) << (bl == "known" ? " <b>[known]</b>" : "") << "</p>\n";
    if (!str(field(run, "baseline"), "reason").empty())
      h << "<p class=\"diag\">&nbsp;&nbsp;accepted because: " << xml_escape(str(run["baseline"], "reason")) << "</p>\n";
    if (field(run, "baseline").is_object())
      for (const char* kind : {"regressions", "known", "improvements"})
        if (field(run["baseline"], kind).is_array())
          for (const ojson& line : run["baseline"][kind])
            if (line.is_string())
              h << "<p class=\"diag mono\">&nbsp;&nbsp;" << (std::string(kind) == "regressions" ? "REGRESSION" : kind) << ": "
                << xml_escape(line.get<std::string>()) << "</p>\n";
  }
  if (!n_diag) h << "<p>Every run within tolerance; nothing to diagnose.</p>\n";

  // Worst entries over every run: the largest rel_err / tolerance first.
  struct Worst {
    double badness;
    const ojson* run;
    const ojson* s;
  };
  std::vector<Worst> worst;
  for (const ojson& run : runs)
    if (const ojson* r = report_of(run))
      for (const ojson& s : (*r)["samples"]) {
        const double re = num(s, "rel_err"), tol = num(s, "tolerance");
        if (std::isfinite(re) && std::isfinite(tol) && tol > 0) worst.push_back({re / tol, &run, &s});
      }
  std::stable_sort(worst.begin(), worst.end(), [](const Worst& a, const Worst& b) { return a.badness > b.badness; });
  h << "<h2 id=\"worst\">Worst entries</h2>\n<p>Over every run and sample, by error / tolerance (above 1: outside tolerance).</p>\n"
       "<table id=\"worst-table\"><thead><tr><th class=\"l\">engine</th><th class=\"l\">model</th><th class=\"l\">quantity</th><th class=\"l\">sample</th>"
       "<th class=\"l\">entry</th><th>digits</th><th>rel err</th><th>tolerance</th><th>err / tol</th><th class=\"l\">reference</th>"
       "<th class=\"l\">engine value</th></tr></thead><tbody>\n";
  for (size_t k = 0; k < worst.size() && k < 25; ++k) {
    const ojson& s = *worst[k].s;
    std::string entry;
    if (field(s, "worst_entry").is_array() && s["worst_entry"].size() == 2)
      entry = "(" + s["worst_entry"][0].dump() + "," + s["worst_entry"][1].dump() + ")";
    h << "<tr" << (worst[k].badness > 1 ? (s.contains("convention") ? " class=\"known\"" : " class=\"bad\"") : "") << "><td class=\"l\">"
      << xml_escape(str(*worst[k].run, "engine")) << "</td><td class=\"l\">" << xml_escape(str(*worst[k].run, "model")) << "</td><td class=\"l\">"
      << xml_escape(str(s, "quantity")) << "</td><td class=\"l\">" << xml_escape(str(s, "sample")) << "</td><td class=\"l\">" << xml_escape(entry) << "</td><td>"
      << fmt("%.1f", num(s, "digits")) << "</td><td>" << fmt("%.3g", num(s, "rel_err")) << "</td><td>" << fmt("%.3g", num(s, "tolerance"))
      << "</td><td>" << fmt("%.3g", worst[k].badness) << "</td><td class=\"l mono\">" << xml_escape(str(s, "reference")) << "</td><td class=\"l mono\">"
      << xml_escape(str(s, "engine")) << "</td></tr>\n";
  }
  h << "</tbody></table>\n";

  // Per run.
  h << "<h2 id=\"runs\">Runs</h2>\n";
  for (const ojson& run : runs) {
    const ojson* r = report_of(run);
    if (!r) continue;
    const std::string st = str(run, "status"), bl = str(field(run, "baseline"), "status");
    const std::string model = str(run, "model");
    h << "<details id=\"" << xml_escape("run-" + str(run, "engine") + "-" + model) << "\"" << (st == "passed" ? "" : " open") << "><summary>"
      << xml_escape(str(run, "engine")) << " × " << xml_escape(model) << " — " << (st == "passed" ? "passed" : bl == "known" ? "known" : "FAILED") << "</summary>\n";
    const ojson& eng = field(*r, "engine");
    h << "<p>" << xml_escape(str(eng, "name")) << " " << xml_escape(str(eng, "version")) << ", scalar " << xml_escape(str(eng, "scalar")) << ", import path "
      << xml_escape(str(eng, "import_path")) << "; model sha256 <span class=\"mono\">" << xml_escape(str(field(*r, "model"), "sha256").substr(0, 16))
      << "…</span></p>\n";
    const std::string d = str(run, "diagnosis");
    if (!d.empty() && d != "none") h << "<p><b>Diagnosis:</b> " << xml_escape(d) << "</p>\n";
    // Model echo.
    const ojson& echo = field(*r, "model_echo");
    if (echo.is_object()) {
      h << "<h3>Model echo: " << xml_escape(str(echo, "status")) << "</h3>\n<table><tr>";
      const ojson& mx = field(echo, "max");
      if (mx.is_object()) {
        for (auto it = mx.begin(); it != mx.end(); ++it) h << "<th>" << xml_escape(it.key()) << "</th>";
        h << "</tr><tr>";
        for (auto it = mx.begin(); it != mx.end(); ++it) h << "<td>" << (it.value().is_number() ? fmt("%.2g", it.value().get<double>()) : xml_escape(it.value().dump())) << "</td>";
      }
      h << "</tr></table>\n<p class=\"mono\">tolerance: " << xml_escape(str(field(echo, "tolerance"), "rule")) << "</p>\n";
    } else {
      h << "<h3>Model echo: none</h3>\n";
    }
    // Quantities.
    h << "<h3>Quantities</h3>\n<table><thead><tr><th class=\"l\">quantity</th><th>samples</th><th>min digits</th><th>cap</th><th class=\"l\">worst "
         "sample</th><th>max rel err</th><th>tolerance</th><th class=\"l\">rule</th><th class=\"l\">status</th></tr></thead><tbody>\n";
    for (const ojson& q : (*r)["quantities"]) {
      if (!(num(q, "samples") > 0)) continue;
      const bool passed = flag(q, "passed", false);
      h << "<tr><td class=\"l\">" << xml_escape(str(q, "quantity")) << "</td><td>" << fmt("%.0f", num(q, "samples")) << "</td><td style=\"background:"
        << digits_colour(num(q, "min_digits")) << "\">" << fmt("%.1f", num(q, "min_digits")) << "</td><td" << cap_title(q) << ">" << fmt("%.0f", num(q, "cap"))
        << (str(q, "cap_kind") == "proven" ? " (proven)" : str(q, "cap_kind") == "mixed" ? " (partly proven)" : "")
        << "</td><td class=\"l\">" << xml_escape(str(field(q, "worst"), "sample")) << "</td><td>" << fmt("%.3g", num(q, "max_rel_err")) << "</td><td>"
        << fmt("%.3g", num(q, "tolerance")) << "</td><td class=\"l\">" << xml_escape(str(q, "rule")) << "</td><td class=\"l\">"
        << (passed ? "passed" : q.contains("convention") ? "convention: " + xml_escape(str(q, "convention")) : "<b>outside tolerance</b>") << "</td></tr>\n";
    }
    h << "</tbody></table>\n";
    // Charts.
    const ModelInfo& mi = models[model];
    std::vector<std::string> ids = mi.ids;
    if (ids.empty())
      for (const ojson& s : (*r)["samples"])
        if (std::find(ids.begin(), ids.end(), str(s, "sample")) == ids.end()) ids.push_back(str(s, "sample"));
    std::vector<std::pair<std::string, std::vector<Point>>> by_sample, by_kappa;
    for (const std::string& qn : quantities) {
      std::vector<Point> a, b;
      for (const ojson& s : (*r)["samples"]) {
        if (str(s, "quantity") != qn) continue;
        const auto at = std::find(ids.begin(), ids.end(), str(s, "sample"));
        const double dg = num(s, "digits");
        const bool failed = !flag(s, "passed", true);
        if (at != ids.end()) a.push_back({static_cast<double>(at - ids.begin()), dg, failed, str(s, "sample")});
        if (const auto k = mi.log_kappa.find(str(s, "sample")); k != mi.log_kappa.end())
          b.push_back({k->second, dg, failed, str(s, "sample")});
      }
      std::sort(b.begin(), b.end(), [](const Point& p, const Point& q) { return p.x < q.x; });
      if (!a.empty()) by_sample.push_back({qn, a});
      if (!b.empty()) by_kappa.push_back({qn, b});
    }
    std::vector<std::string> ticks = ids;
    for (size_t k = 0; k < ticks.size() && k < mi.kinds.size(); ++k)
      if (mi.kinds[k] == "near_singular") ticks[k] += "*";
    h << svg_chart("digits per sample (* near-singular)", "sample", ticks, by_sample, true);
    if (!by_kappa.empty()) h << svg_chart("digits against the condition number of H", "log10 κ₂(H)", {}, by_kappa, false);
    // Failing checks and notes.
    std::vector<std::string> failing;
    for (const ojson& c : field(*r, "checks"))
      if (!flag(c, "passed", true))
        failing.push_back(str(c, "sample") + " " + str(c, "name") + ": residual " + fmt("%.3g", num(c, "residual")) + ", tolerance " +
                          fmt("%.3g", num(c, "tolerance")) + (c.contains("convention") ? " (convention)" : ""));
    if (!failing.empty()) {
      h << "<h3>Failing checks</h3>\n<ul>";
      for (const std::string& f : failing) h << "<li class=\"mono\">" << xml_escape(f) << "</li>";
      h << "</ul>\n";
    }
    if (field(*r, "notes").is_array() && !(*r)["notes"].empty()) {
      h << "<h3>Notes</h3>\n<ul>";
      for (const ojson& n : (*r)["notes"])
        if (n.is_string()) h << "<li>" << xml_escape(n.get<std::string>()) << "</li>";
      h << "</ul>\n";
    }
    h << "</details>\n";
  }

  h << "<script type=\"application/json\" id=\"audit-data\">" << data_text << "</script>\n";
  h << R"JS(<script>
"use strict";
(function () {
  var errors = document.getElementById("script-errors");
  window.addEventListener("error", function (e) {
    errors.textContent += "script error: " + e.message + " (line " + e.lineno + ")\n";
  });
  function colour(d) {
    var t = Math.max(0, Math.min(1, d / 15));
    return "hsl(" + Math.round(120 * t) + ",70%," + Math.round(80 - 10 * t) + "%)";
  }
  var data = JSON.parse(document.getElementById("audit-data").textContent);
  var quantities = [], engines = [], models = [];
  data.forEach(function (row) {
    if (engines.indexOf(row.engine) < 0) engines.push(row.engine);
    if (models.indexOf(row.model) < 0) models.push(row.model);
    Object.keys(row.cells).forEach(function (q) { if (quantities.indexOf(q) < 0) quantities.push(q); });
  });
  var select = document.getElementById("pivot-quantity");
  quantities.forEach(function (q) {
    var o = document.createElement("option");
    o.value = q; o.textContent = q; select.appendChild(o);
  });
  function pivot() {
    var q = select.value, table = document.createElement("table"), head = table.insertRow();
    table.id = "pivot-table";
    var corner = document.createElement("th"); corner.textContent = "engine \\ model"; head.appendChild(corner);
    models.forEach(function (m) { var th = document.createElement("th"); th.textContent = m; head.appendChild(th); });
    engines.forEach(function (e) {
      var tr = table.insertRow(), th = document.createElement("th");
      th.textContent = e; th.className = "l"; tr.appendChild(th);
      models.forEach(function (m) {
        var td = tr.insertCell(), row = data.filter(function (r) { return r.engine === e && r.model === m; })[0];
        var c = row && row.cells[q];
        if (!c) { td.textContent = row ? (row.cells && Object.keys(row.cells).length ? "–" : row.status) : ""; td.className = "na"; return; }
        td.textContent = (c.digits === null ? "–" : c.digits.toFixed(1)) + (c.passed ? "" : c.known ? " known" : c.convention ? "~" : "!");
        if (c.digits !== null) td.style.background = colour(c.digits);
      });
    });
    var holder = document.getElementById("pivot");
    holder.innerHTML = "";
    holder.appendChild(table);
  }
  select.addEventListener("change", pivot);
  if (quantities.length) pivot();
  document.body.setAttribute("data-ready", "1");
})();
</script>
)JS";
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace rbd
