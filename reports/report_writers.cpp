// Writers of a comparison report: JSON (format "rbdref.report" version 1, docs/reports.md), JUnit
// XML for CI dashboards, and the short tables the commands print.
#include "io/quantities.hpp"
#include "io/text.hpp"
#include "io/xml_escape.hpp"
#include "reports/compare.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace rbd {

namespace {

using ojson = nlohmann::ordered_json;

// A double for a table: "0" for zero, "inf" / "nan" spelled out, else 2 significant digits.
std::string sci(double x) {
  if (x == 0) return "0";
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return "inf";
  return format_number("%.2g", x);
}

std::string entry(int row, int col, bool matrix) {
  return matrix ? "(" + std::to_string(row) + "," + std::to_string(col) + ")" : "[" + std::to_string(row) + "]";
}

// Left-padded / right-padded to width w (UTF-8 aware enough for the ASCII used in tables).
std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }
std::string rpad(const std::string& s, size_t w) { return s.size() >= w ? s + " " : std::string(w - s.size(), ' ') + s + " "; }

// The checks of one kind over the samples: how many ran, how many failed, and the worst one (a
// failing one first, then the largest residual / tolerance).
struct CheckKind {
  std::string name;
  int samples = 0, failed = 0;
  int by_convention = 0;       // of the failed: explained by a declared convention (SampleCheck::convention)
  std::string convention;
  const SampleCheck* worst = nullptr;
  bool fails() const { return failed > by_convention; }
};

double check_badness(const CheckResult& r) {
  if (std::isnan(r.residual)) return std::numeric_limits<double>::infinity();
  if (r.tolerance > 0) return r.residual / r.tolerance;
  return r.residual > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

std::vector<CheckKind> check_kinds(const std::vector<SampleCheck>& checks) {
  std::vector<CheckKind> kinds;
  for (const SampleCheck& c : checks) {
    CheckKind* k = nullptr;
    for (CheckKind& x : kinds)
      if (x.name == c.result.name) k = &x;
    if (!k) {
      kinds.emplace_back();
      kinds.back().name = c.result.name;
      k = &kinds.back();
    }
    ++k->samples;
    if (!c.result.passed) ++k->failed;
    if (!c.result.passed && !c.convention.empty()) ++k->by_convention, k->convention = c.convention;
    const bool worse = !k->worst || (k->worst->result.passed && !c.result.passed) ||
                       (k->worst->result.passed == c.result.passed && check_badness(c.result) > check_badness(k->worst->result));
    if (worse) k->worst = &c;
  }
  return kinds;
}


std::string quantity_failure(const Report& r, const QuantityScore& q) {
  std::string m = q.quantity + ": worst sample " + q.worst_sample + " entry " + entry(q.worst_row, q.worst_col, is_matrix_quantity(q.quantity));
  for (const SampleScore& s : r.samples)
    if (s.sample == q.worst_sample && s.quantity == q.quantity)
      m += ": rel err " + format_number("%.3g", s.rel_err) + " > tolerance " + format_number("%.3g", s.tolerance) + " (" + format_number("%.1f", s.digits) +
           " digits of " + format_number("%.0f", s.cap) + "; reference " + s.reference + ", engine " + s.engine + ")";
  return m + "; rule " + q.rule;
}

}  // namespace

ojson report_to_json(const Report& r) {
  ojson doc;
  doc["format"] = "rbdref.report";
  doc["version"] = 1;
  doc["generator"] = {{"rbdref_version", "0.1.0"}};
  doc["engine"] = {{"name", r.engine}, {"version", r.engine_version}, {"scalar", r.scalar}, {"epsilon", r.epsilon},
                   {"import_path", r.import_path}, {"file", r.engine_file}};
  doc["model"] = {{"name", r.model_name}, {"sha256", r.model_sha256}};
  doc["fixture"] = r.fixture_file.empty() ? ojson(nullptr)
                                          : ojson({{"file", r.fixture_file}, {"precision", r.fixture_precision}});
  doc["conventions"] = {{"fixture", ojson::parse(r.fixture_conventions.dump())},
                        {"engine", ojson::parse(r.engine_conventions.dump())}};
  doc["model_echo"] = ojson::parse(r.model_echo.dump());
  ojson qs = ojson::array();
  // A quantity absent from every engine sample has no score: its score fields are null.
  for (const QuantityScore& q : r.quantities) {
    const bool scored = q.samples > 0;
    qs.push_back({{"quantity", q.quantity}, {"samples", q.samples}, {"missing", q.missing},
                  {"min_digits", scored ? ojson(q.min_digits) : ojson(nullptr)}, {"cap", scored ? ojson(q.cap) : ojson(nullptr)},
                  {"max_abs_err", scored ? ojson(q.max_abs_err) : ojson(nullptr)},
                  {"max_rel_err", scored ? ojson(q.max_rel_err) : ojson(nullptr)},
                  {"worst", scored ? ojson({{"sample", q.worst_sample}, {"entry", {q.worst_row, q.worst_col}}}) : ojson(nullptr)},
                  {"tolerance", scored ? ojson(q.tolerance) : ojson(nullptr)}, {"rule", q.rule}, {"passed", q.passed}});
    if (!q.convention.empty()) qs.back()["convention"] = q.convention;
    // Which digits the cap is: the reference's proven digits (a fixture made with --prove) in
    // every sample, in none (estimated: two precisions), or in some.
    if (scored)
      qs.back()["cap_kind"] = q.proven_samples == q.samples ? "proven" : q.proven_samples == 0 ? "estimated" : "mixed";
  }
  doc["quantities"] = qs;
  ojson ss = ojson::array();
  for (const SampleScore& s : r.samples) {
    ss.push_back({{"sample", s.sample}, {"quantity", s.quantity}, {"abs_err", s.abs_err}, {"rel_err", s.rel_err},
                  {"scale", s.scale}, {"digits", s.digits}, {"cap", s.cap}, {"tolerance", s.tolerance},
                  {"worst_entry", {s.worst_row, s.worst_col}}, {"reference", s.reference}, {"engine", s.engine},
                  {"passed", s.passed}});
    if (!s.convention.empty()) ss.back()["convention"] = s.convention;
    if (s.model_digits >= 0) ss.back()["digits_vs_engine_model"] = s.model_digits;
    ss.back()["cap_kind"] = s.proven ? "proven" : "estimated";
  }
  doc["samples"] = ss;
  ojson cs = ojson::array();
  for (const SampleCheck& c : r.checks) {
    cs.push_back({{"sample", c.sample}, {"name", c.result.name}, {"passed", c.result.passed},
                  {"residual", c.result.residual}, {"tolerance", c.result.tolerance}, {"digits", c.result.digits()},
                  {"detail", c.result.detail}});
    if (!c.convention.empty()) cs.back()["convention"] = c.convention;
  }
  doc["checks"] = cs;
  if (!r.soft_constraints.empty())
    doc["soft_loop_constraints"] = {{"engine_model", r.soft_constraints},
                                    {"constraint_violation", r.constraint_violation},
                                    {"measure", "largest loops.K_qdd_equals_k residual over the samples: "
                                                "max|K q̈ - k| / (max|K| max|q̈| + max|k|), q̈ the engine's"}};
  doc["notes"] = r.notes;
  doc["sample_failures"] = r.sample_failures;
  doc["passed"] = r.passed;
  return doc;
}

std::string reports_to_junit(const std::vector<Report>& reports, const KnownFailures& known) {
  struct Case {
    std::string name, failure, detail, skipped;
  };
  std::string suites;
  int all_tests = 0, all_failures = 0, all_skipped = 0;
  for (const Report& r : reports) {
    const std::string cls = "rbdref." + r.engine + "." + r.model_name;
    std::vector<Case> cases;
    // One testcase per quantity, one per check kind, and one for the samples themselves.
    // A failure's body lists every failing sample of the quantity or check kind.
    for (const QuantityScore& q : r.quantities) {
      std::string detail;
      for (const SampleScore& s : r.samples)
        if (s.quantity == q.quantity && !s.passed)
          detail += s.sample + " " + entry(s.worst_row, s.worst_col, is_matrix_quantity(q.quantity)) + ": rel err " + format_number("%.3g", s.rel_err) +
                    " > tolerance " + format_number("%.3g", s.tolerance) + " (" + format_number("%.1f", s.digits) + " digits)\n";
      cases.push_back({q.quantity, q.passed || !q.convention.empty() ? "" : quantity_failure(r, q), detail,
                       q.samples == 0 ? "absent from every engine sample: not compared"
                       : !q.convention.empty() ? "convention: " + q.convention + ", " + format_number("%.1f", q.min_digits) + " digits"
                                               : ""});
    }
    for (const CheckKind& k : check_kinds(r.checks)) {
      std::string detail;
      for (const SampleCheck& c : r.checks)
        if (c.result.name == k.name && !c.result.passed) detail += c.sample + ": " + c.result.message() + "\n";
      cases.push_back({k.name,
                       !k.fails() ? ""
                                  : k.name + ": " + std::to_string(k.failed) + " of " + std::to_string(k.samples) +
                                        " samples fail; worst sample " + k.worst->sample + ": residual " +
                                        format_number("%.3g", k.worst->result.residual) + " > tolerance " +
                                        format_number("%.3g", k.worst->result.tolerance),
                       detail,
                       k.failed > 0 && !k.fails() ? "convention: " + k.convention + ", largest residual " +
                                                        format_number("%.3g", k.worst->result.residual)
                                                  : ""});
    }
    std::string sf;
    for (const std::string& n : r.sample_failures) sf += n + "\n";
    cases.push_back({"samples", r.sample_failures.empty() ? "" : std::to_string(r.sample_failures.size()) +
                                                                   " engine samples failed or ran another state",
                     sf, ""});
    int failures = 0, skipped = 0;
    std::string body;
    const auto kn = known.names.find(r.engine + " × " + r.model_name);
    for (Case& c : cases)
      if (!c.failure.empty() && kn != known.names.end() && kn->second.count(c.name)) {
        c.skipped = "known discrepancy (" + known.source + "): " + c.failure;
        c.failure.clear();
      }
    for (const Case& c : cases) {
      body += "    <testcase classname=\"" + xml_escape(cls) + "\" name=\"" + xml_escape(c.name) + "\" time=\"0\"";
      if (!c.skipped.empty()) {
        ++skipped;
        body += ">\n      <skipped message=\"" + xml_escape(c.skipped) + "\"/>\n    </testcase>\n";
        continue;
      }
      if (c.failure.empty()) {
        body += "/>\n";
        continue;
      }
      ++failures;
      body += ">\n      <failure type=\"discrepancy\" message=\"" + xml_escape(c.failure) + "\">" +
              xml_escape(c.detail.empty() ? c.failure : c.detail) + "</failure>\n    </testcase>\n";
    }
    std::string notes;
    for (const std::string& n : r.notes) notes += n + "\n";
    suites += "  <testsuite name=\"" + xml_escape(cls) + "\" tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
              std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"0\">\n" + body;
    if (!notes.empty()) suites += "    <system-out>" + xml_escape(notes) + "</system-out>\n";
    suites += "  </testsuite>\n";
    all_tests += static_cast<int>(cases.size());
    all_failures += failures;
    all_skipped += skipped;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rbdref\" tests=\"" + std::to_string(all_tests) +
         "\" failures=\"" + std::to_string(all_failures) + "\" errors=\"0\" skipped=\"" + std::to_string(all_skipped) +
         "\" time=\"0\">\n" + suites + "</testsuites>\n";
}

std::string checks_summary(const std::vector<SampleCheck>& checks) {
  size_t width = 36;  // the names' column: wide enough for the longest name
  for (const SampleCheck& c : checks) width = std::max(width, c.result.name.size() + 2);
  std::string s = pad("check", width) + rpad("samples", 8) + rpad("failed", 7) + pad(" worst", 10) + rpad("residual", 10) +
                  rpad("tolerance", 10) + "status\n";
  for (const CheckKind& k : check_kinds(checks)) {
    const CheckResult& w = k.worst->result;
    s += pad(k.name, width) + rpad(std::to_string(k.samples), 8) + rpad(std::to_string(k.failed), 7) + pad(" " + k.worst->sample, 10) +
         rpad(sci(w.residual), 10) + rpad(sci(w.tolerance), 10) + (k.fails() ? "FAIL" : k.failed ? "convention" : "ok") + "\n";
  }
  if (checks.empty()) s += "(no checks: the output has no H)\n";
  return s;
}

std::string report_summary(const Report& r) {
  std::string s = "rbdref compare: " + r.engine + " " + r.engine_version + " (" + r.scalar + ", ε " + sci(r.epsilon) +
                  ") against " + r.fixture_file + " (" + r.fixture_precision + "), model " + r.model_name + "\n";
  size_t width = 10;  // the names' column: wide enough for the longest name (contact_tau_c, ...)
  for (const QuantityScore& q : r.quantities) width = std::max(width, q.quantity.size() + 1);
  s += pad("quantity", width) + rpad("samples", 8) + rpad("missing", 8) + rpad("digits", 7) + rpad("cap", 4) + pad(" worst", 14) +
       rpad("rel err", 9) + rpad("tolerance", 10) + pad("status", 7) + "rule\n";
  for (const QuantityScore& q : r.quantities) {
    const std::string worst = q.samples ? " " + q.worst_sample + " " + entry(q.worst_row, q.worst_col, is_matrix_quantity(q.quantity)) : " -";
    double rel = 0;
    for (const SampleScore& x : r.samples)
      if (x.sample == q.worst_sample && x.quantity == q.quantity) rel = x.rel_err;
    s += pad(q.quantity, width) + rpad(std::to_string(q.samples), 8) + rpad(std::to_string(q.missing), 8) +
         rpad(q.samples ? format_number("%.1f", q.min_digits) : "-", 7) +
         rpad(q.samples ? format_number("%.0f", q.cap) + (q.proven_samples == q.samples ? "p" : "") : "-", 4) + pad(worst, 14) +
         rpad(q.samples ? sci(rel) : "-", 9) + rpad(q.samples ? sci(q.tolerance) : "-", 10) +
         pad(q.samples == 0 ? "absent" : q.passed ? "ok" : q.convention.empty() ? "FAIL" : "conv.", 7) + q.rule + "\n";
  }
  bool any_proven = false;
  for (const QuantityScore& q : r.quantities) any_proven = any_proven || (q.samples > 0 && q.proven_samples == q.samples);
  if (any_proven) s += "(cap: p = the reference's proven digits, fixture --prove; otherwise its estimated digits)\n";
  if (!r.soft_constraints.empty())
    s += "soft loop constraints (the engine's declared model): " + r.soft_constraints +
         "; measured constraint violation max|K q̈ - k| / scale = " + sci(r.constraint_violation) + "\n";
  s += checks_summary(r.checks);
  for (const std::string& n : r.notes) s += "note: " + n + "\n";
  s += r.passed ? "PASSED\n" : "FAILED\n";
  return s;
}

}  // namespace rbd
