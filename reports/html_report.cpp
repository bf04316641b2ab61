// The audit's self-contained HTML report (html_report.hpp): the page's stages, each writing its
// part from the document as read once (read_page).
#include "reports/html_report.hpp"

#include "io/xml_escape.hpp"
#include "reports/html_report_parts.hpp"
#include "reports/run_status.hpp"

#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace rbd {

namespace {

using namespace html_report;

// One run of the document: its fields, its status, its baseline status (when judged), its report.
struct PageRun {
  const ojson* json;
  std::string engine, model, reason, diagnosis;
  RunStatus status;
  std::optional<BaselineStatus> baseline;
  const ojson* report;  // or nullptr
  const ojson& verdict() const { return field(*json, "baseline"); }
};

// A model's samples: ids and kinds in order, log10 κ₂(H) of those with a finite one.
struct ModelInfo {
  std::vector<std::string> ids, kinds;
  std::map<std::string, double> log_kappa;
};

struct Page {
  const ojson& audit;
  std::vector<PageRun> runs;
  std::map<std::string, ModelInfo> models;
  std::vector<std::string> quantities;  // every quantity a report scored, in the order they first appear
};

// The report of a run: by its index when the run gives one, else the first of its engine × model.
const ojson* report_of(const ojson& run, const ojson& reports) {
  const double idx = num(run, "report_index");
  if (std::isfinite(idx) && idx >= 0 && idx < static_cast<double>(reports.size())) return &reports[static_cast<size_t>(idx)];
  for (const ojson& r : reports)
    if (str(field(r, "engine"), "name") == str(run, "engine") && str(field(r, "model"), "name") == str(run, "model")) return &r;
  return nullptr;
}

Page read_page(const ojson& audit) {
  Page page{audit, {}, {}, {}};
  const ojson& reports = field(audit, "reports");
  for (const ojson& run : field(audit, "runs")) {
    // Always a run status here (the document is validated, or the audit's own).
    const std::optional<RunStatus> status = parse_run_status(str(run, "status"));
    page.runs.push_back({&run, str(run, "engine"), str(run, "model"), str(run, "reason"), str(run, "diagnosis"),
                         status.value_or(RunStatus::NotAvailable), parse_baseline_status(str(field(run, "baseline"), "status")),
                         report_of(run, reports)});
  }
  for (const ojson& m : field(audit, "models")) {
    ModelInfo& mi = page.models[str(m, "name")];
    if (!field(m, "samples").is_array()) continue;
    for (const ojson& s : m["samples"]) {
      mi.ids.push_back(str(s, "id"));
      mi.kinds.push_back(str(s, "kind"));
      const double k = num(s, "kappa");
      if (std::isfinite(k) && k > 0) mi.log_kappa[str(s, "id")] = std::log10(k);
    }
  }
  for (const ojson& r : reports)
    for (const ojson& q : r["quantities"])
      if (num(q, "samples") > 0 && std::find(page.quantities.begin(), page.quantities.end(), str(q, "quantity")) == page.quantities.end())
        page.quantities.push_back(str(q, "quantity"));
  return page;
}

// A run's verdict on the page, and its CSS class: passed, known (a baseline's known discrepancy),
// else FAILED.
std::string run_verdict(const PageRun& run) {
  if (run.status == RunStatus::Passed) return to_string(RunStatus::Passed);
  return run.baseline == BaselineStatus::Known ? to_string(BaselineStatus::Known) : "FAILED";
}
const char* run_class(const PageRun& run) {
  return run.status == RunStatus::Passed ? "ok" : run.baseline == BaselineStatus::Known ? "known" : "bad";
}

// The quantities a baseline lists as known for a run (its "known" lines, "quantity: ...").
std::set<std::string> known_quantities(const PageRun& run) {
  std::set<std::string> known;
  for (const ojson& line : field(run.verdict(), "known"))
    if (line.is_string()) known.insert(line.get<std::string>().substr(0, line.get<std::string>().find(':')));
  return known;
}

// The cap cell's tooltip: which digits the cap is (compare's cap_kind; absent in older reports).
std::string cap_title(const ojson& q) {
  const std::string k = str(q, "cap_kind");
  if (k == "proven") return " title=\"the reference's proven digits (fixture --prove): an interval enclosure\"";
  if (k == "mixed") return " title=\"proven digits in some samples, estimated (two precisions) in the others\"";
  if (k == "estimated") return " title=\"the reference's estimated digits: two precisions agree\"";
  return "";
}

void head(std::ostringstream& h) {
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rbdref audit</title>\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<style>\n"
    << kStyle << "</style>\n</head>\n<body>\n";
}

// The title, the verdict with the runs counted by status, the baseline, the script's error box.
void verdict(std::ostringstream& h, const Page& page) {
  size_t n_failed = 0, n_known = 0, n_passed = 0, n_other = 0;
  for (const PageRun& run : page.runs) {
    const bool failed = run.status == RunStatus::Failed || run.status == RunStatus::EngineFailed;
    if (run.status == RunStatus::Passed) ++n_passed;
    else if (failed && run.baseline == BaselineStatus::Known) ++n_known;
    else if (failed) ++n_failed;
    else ++n_other;
  }
  const ojson& baseline = field(page.audit, "baseline");
  const bool regressed = baseline.is_object() ? flag(baseline, "regressed", true) : !flag(page.audit, "passed", false);
  h << "<h1>rbdref audit</h1>\n";
  h << "<p class=\"verdict " << (regressed ? "bad" : n_known ? "known" : "ok") << "\" id=\"verdict\">"
    << (regressed ? "FAILED: discrepancies outside tolerance" : n_known ? "passed, with known discrepancies" : "passed") << " — " << page.runs.size()
    << " engine × model runs: " << n_passed << " passed, " << n_known << " known, " << n_failed << " failed, " << n_other
    << " not run (unsupported or not available)</p>\n";
  if (baseline.is_object())
    h << "<p>Baseline <span class=\"mono\">" << xml_escape(str(baseline, "file")) << "</span>, margin " << fmt("%.1f", num(baseline, "margin_digits"))
      << " digits: " << (flag(baseline, "regressed", false) ? "<b>regressions</b> (below)" : "no regression") << ".</p>\n";
  h << "<div id=\"script-errors\"></div>\n";
}

// One heatmap cell: the quantity's smallest digits, coloured, marked, with its worst sample.
void heatmap_cell(std::ostringstream& h, const ojson& report, const std::string& qn, const std::set<std::string>& known) {
  const ojson* q = nullptr;
  for (const ojson& x : report["quantities"])
    if (str(x, "quantity") == qn && num(x, "samples") > 0) q = &x;
  if (!q) {
    h << "<td class=\"na\">–</td>";
    return;
  }
  const double d = num(*q, "min_digits");
  const bool passed = flag(*q, "passed", false), conv = q->contains("convention");
  const std::string mark = passed ? "" : known.count(qn) ? " known" : conv ? "~" : "!";
  h << "<td style=\"background:" << digits_colour(d) << "\" title=\"" << xml_escape(qn) << ": worst sample " << xml_escape(str(field(*q, "worst"), "sample"))
    << ", rel err " << fmt("%.3g", num(*q, "max_rel_err")) << ", tolerance " << fmt("%.3g", num(*q, "tolerance")) << " (" << xml_escape(str(*q, "rule"))
    << ")" << (conv ? "; convention: " + xml_escape(str(*q, "convention")) : "") << "\">" << fmt("%.1f", d) << xml_escape(mark) << "</td>";
}

// The table engine × model × quantity (a run without a report says why), and the pivot's place.
void heatmap(std::ostringstream& h, const Page& page) {
  h << "<h2 id=\"heatmap\">Digits: engine × model × quantity</h2>\n"
       "<p>The smallest number of correct digits over the samples (LRE, capped at the certified digits). "
       "<b>!</b> outside tolerance, <b>~</b> outside tolerance by a convention the engine declares, <b>known</b> a known "
       "discrepancy of the baseline. Hover a cell for its worst sample.</p>\n";
  h << "<table id=\"heatmap-table\"><thead><tr><th class=\"l\">engine</th><th class=\"l\">model</th>";
  for (const std::string& q : page.quantities) h << "<th>" << xml_escape(q) << "</th>";
  h << "<th class=\"l\">echo</th><th class=\"l\">status</th></tr></thead><tbody>\n";
  for (const PageRun& run : page.runs) {
    const std::string anchor = "run-" + run.engine + "-" + run.model;
    h << "<tr><td class=\"l\"><a href=\"#" << xml_escape(anchor) << "\">" << xml_escape(run.engine) << "</a></td><td class=\"l\">" << xml_escape(run.model)
      << "</td>";
    if (!run.report) {
      h << "<td class=\"l na\" colspan=\"" << page.quantities.size() + 2 << "\">" << xml_escape(to_string(run.status)) << ": " << xml_escape(run.reason)
        << "</td></tr>\n";
      continue;
    }
    const std::set<std::string> known = known_quantities(run);
    for (const std::string& qn : page.quantities) heatmap_cell(h, *run.report, qn, known);
    const std::string echo = str(field(*run.report, "model_echo"), "status");
    h << "<td class=\"l\">" << xml_escape(echo.empty() ? "none" : echo) << "</td><td class=\"l " << run_class(run) << "\">" << run_verdict(run)
      << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
  h << "<h3>One quantity as engine × model</h3>\n<p><label>Quantity <select id=\"pivot-quantity\"></select></label></p>\n"
       "<div id=\"pivot\"></div>\n";
}

// Every run that is not a plain pass and did run: its diagnosis (or reason) and the baseline's
// reason and lines.
void diagnoses(std::ostringstream& h, const Page& page) {
  h << "<h2 id=\"diagnoses\">Diagnoses</h2>\n";
  size_t n_diag = 0;
  for (const PageRun& run : page.runs) {
    const std::string& d = run.diagnosis;
    if (run.status == RunStatus::Passed && (d.empty() || d == "none")) continue;
    if (run.status == RunStatus::Unsupported || run.status == RunStatus::NotAvailable) continue;
    ++n_diag;
    const bool known = run.baseline == BaselineStatus::Known;
    h << "<p class=\"diag\"><span class=\"verdict " << run_class(run) << "\">" << xml_escape(run.engine) << " × " << xml_escape(run.model) << "</span> "
      << xml_escape(d.empty() ? run.reason : d) << (known ? " <b>[known]</b>" : "") << "</p>\n";
    const ojson& v = run.verdict();
    if (!str(v, "reason").empty()) h << "<p class=\"diag\">&nbsp;&nbsp;accepted because: " << xml_escape(str(v, "reason")) << "</p>\n";
    if (v.is_object())
      for (const char* kind : {"regressions", "known", "improvements"})
        if (field(v, kind).is_array())
          for (const ojson& line : v[kind])
            if (line.is_string())
              h << "<p class=\"diag mono\">&nbsp;&nbsp;" << (std::string(kind) == "regressions" ? "REGRESSION" : kind) << ": "
                << xml_escape(line.get<std::string>()) << "</p>\n";
  }
  if (!n_diag) h << "<p>Every run within tolerance; nothing to diagnose.</p>\n";
}

// The 25 worst sample entries over every run, by error / tolerance, the largest first.
void worst_entries(std::ostringstream& h, const Page& page) {
  struct Worst {
    double badness;
    const PageRun* run;
    const ojson* s;
  };
  std::vector<Worst> worst;
  for (const PageRun& run : page.runs)
    if (run.report)
      for (const ojson& s : (*run.report)["samples"]) {
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
      << xml_escape(worst[k].run->engine) << "</td><td class=\"l\">" << xml_escape(worst[k].run->model) << "</td><td class=\"l\">"
      << xml_escape(str(s, "quantity")) << "</td><td class=\"l\">" << xml_escape(str(s, "sample")) << "</td><td class=\"l\">" << xml_escape(entry) << "</td><td>"
      << fmt("%.1f", num(s, "digits")) << "</td><td>" << fmt("%.3g", num(s, "rel_err")) << "</td><td>" << fmt("%.3g", num(s, "tolerance"))
      << "</td><td>" << fmt("%.3g", worst[k].badness) << "</td><td class=\"l mono\">" << xml_escape(str(s, "reference")) << "</td><td class=\"l mono\">"
      << xml_escape(str(s, "engine")) << "</td></tr>\n";
  }
  h << "</tbody></table>\n";
}

// A run's model echo: its status, the largest error of each echoed quantity, the tolerance.
void echo_table(std::ostringstream& h, const ojson& report) {
  const ojson& echo = field(report, "model_echo");
  if (!echo.is_object()) {
    h << "<h3>Model echo: none</h3>\n";
    return;
  }
  h << "<h3>Model echo: " << xml_escape(str(echo, "status")) << "</h3>\n<table><tr>";
  const ojson& mx = field(echo, "max");
  if (mx.is_object()) {
    for (auto it = mx.begin(); it != mx.end(); ++it) h << "<th>" << xml_escape(it.key()) << "</th>";
    h << "</tr><tr>";
    for (auto it = mx.begin(); it != mx.end(); ++it) h << "<td>" << (it.value().is_number() ? fmt("%.2g", it.value().get<double>()) : xml_escape(it.value().dump())) << "</td>";
  }
  h << "</tr></table>\n<p class=\"mono\">tolerance: " << xml_escape(str(field(echo, "tolerance"), "rule")) << "</p>\n";
}

// A run's scored quantities: samples, digits, cap, worst sample, error, tolerance, rule, status.
void quantity_table(std::ostringstream& h, const ojson& report) {
  h << "<h3>Quantities</h3>\n<table><thead><tr><th class=\"l\">quantity</th><th>samples</th><th>min digits</th><th>cap</th><th class=\"l\">worst "
       "sample</th><th>max rel err</th><th>tolerance</th><th class=\"l\">rule</th><th class=\"l\">status</th></tr></thead><tbody>\n";
  for (const ojson& q : report["quantities"]) {
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
}

// A run's two charts: digits per sample (near-singular samples starred), and digits against
// log10 κ₂(H) where the model gives κ.
void run_charts(std::ostringstream& h, const Page& page, const PageRun& run) {
  const ojson& report = *run.report;
  static const ModelInfo kNone;
  const auto found = page.models.find(run.model);
  const ModelInfo& mi = found == page.models.end() ? kNone : found->second;
  std::vector<std::string> ids = mi.ids;
  if (ids.empty())
    for (const ojson& s : report["samples"])
      if (std::find(ids.begin(), ids.end(), str(s, "sample")) == ids.end()) ids.push_back(str(s, "sample"));
  Series by_sample, by_kappa;
  for (const std::string& qn : page.quantities) {
    std::vector<Point> a, b;
    for (const ojson& s : report["samples"]) {
      if (str(s, "quantity") != qn) continue;
      const auto at = std::find(ids.begin(), ids.end(), str(s, "sample"));
      const double dg = num(s, "digits");
      const bool failed = !flag(s, "passed", true);
      if (at != ids.end()) a.push_back({static_cast<double>(at - ids.begin()), dg, failed, str(s, "sample")});
      if (const auto k = mi.log_kappa.find(str(s, "sample")); k != mi.log_kappa.end()) b.push_back({k->second, dg, failed, str(s, "sample")});
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
}

// A run's failing checks (with their residual and tolerance) and its report's notes.
void checks_and_notes(std::ostringstream& h, const ojson& report) {
  std::vector<std::string> failing;
  for (const ojson& c : field(report, "checks"))
    if (!flag(c, "passed", true))
      failing.push_back(str(c, "sample") + " " + str(c, "name") + ": residual " + fmt("%.3g", num(c, "residual")) + ", tolerance " +
                        fmt("%.3g", num(c, "tolerance")) + (c.contains("convention") ? " (convention)" : ""));
  if (!failing.empty()) {
    h << "<h3>Failing checks</h3>\n<ul>";
    for (const std::string& f : failing) h << "<li class=\"mono\">" << xml_escape(f) << "</li>";
    h << "</ul>\n";
  }
  if (field(report, "notes").is_array() && !report["notes"].empty()) {
    h << "<h3>Notes</h3>\n<ul>";
    for (const ojson& n : report["notes"])
      if (n.is_string()) h << "<li>" << xml_escape(n.get<std::string>()) << "</li>";
    h << "</ul>\n";
  }
}

// One run with a report, folded unless it failed: the engine, the diagnosis, then its parts.
void run_section(std::ostringstream& h, const Page& page, const PageRun& run) {
  const ojson& r = *run.report;
  h << "<details id=\"" << xml_escape("run-" + run.engine + "-" + run.model) << "\"" << (run.status == RunStatus::Passed ? "" : " open") << "><summary>"
    << xml_escape(run.engine) << " × " << xml_escape(run.model) << " — " << run_verdict(run) << "</summary>\n";
  const ojson& eng = field(r, "engine");
  h << "<p>" << xml_escape(str(eng, "name")) << " " << xml_escape(str(eng, "version")) << ", scalar " << xml_escape(str(eng, "scalar")) << ", import path "
    << xml_escape(str(eng, "import_path")) << "; model sha256 <span class=\"mono\">" << xml_escape(str(field(r, "model"), "sha256").substr(0, 16))
    << "…</span></p>\n";
  if (!run.diagnosis.empty() && run.diagnosis != "none") h << "<p><b>Diagnosis:</b> " << xml_escape(run.diagnosis) << "</p>\n";
  echo_table(h, r);
  quantity_table(h, r);
  run_charts(h, page, run);
  checks_and_notes(h, r);
  h << "</details>\n";
}

// The data the script pivots (per run its quantity cells: digits, passed, convention, known), as
// JSON safe inside a <script> element, then the script.
void script(std::ostringstream& h, const Page& page) {
  ojson data = ojson::array();
  for (const PageRun& run : page.runs) {
    ojson row = {{"engine", run.engine}, {"model", run.model}, {"status", to_string(run.status)}, {"cells", ojson::object()}};
    if (run.report)
      for (const ojson& q : (*run.report)["quantities"])
        if (num(q, "samples") > 0)
          row["cells"][str(q, "quantity")] = {{"digits", num(q, "min_digits")}, {"passed", flag(q, "passed", false)},
                                             {"convention", q.contains("convention")}};
    for (const std::string& qn : known_quantities(run))
      if (row["cells"].contains(qn)) row["cells"][qn]["known"] = true;
    data.push_back(row);
  }
  std::string data_text = data.dump();
  for (size_t p = 0; (p = data_text.find("</", p)) != std::string::npos; p += 3) data_text.replace(p, 2, "<\\/");
  h << "<script type=\"application/json\" id=\"audit-data\">" << data_text << "</script>\n";
  h << kScript;
}

}  // namespace

std::string audit_html(const ojson& audit) {
  const Page page = read_page(audit);
  std::ostringstream h;
  head(h);
  verdict(h, page);
  heatmap(h, page);
  diagnoses(h, page);
  worst_entries(h, page);
  h << "<h2 id=\"runs\">Runs</h2>\n";
  for (const PageRun& run : page.runs)
    if (run.report) run_section(h, page, run);
  script(h, page);
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace rbd
