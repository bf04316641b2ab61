// The audit's HTML report: one self-contained file (inline CSS, SVG and script; nothing fetched),
// made from the audit document alone (audit.json, format "rbdref.audit"), so `rbdref html` can
// make it again from a CI artifact. docs/reports.md "HTML report" says what it shows:
//   - the verdict, the baseline's, and every diagnosis;
//   - the heatmap engine × model × quantity (smallest digits, colour by digits; '!' outside
//     tolerance, '~' a declared convention, 'known' a baseline's known discrepancy), and a pivot of
//     one quantity as engine × model (the script builds it from the embedded data);
//   - the worst entries over every run (sample, entry, both values, error, tolerance);
//   - per run: diagnosis, baseline lines, the model echo, each quantity's worst entry, the digits
//     per sample and the digits against κ₂(H) (inline SVG), failing checks, notes.
// The script reports its own errors into #script-errors and sets <body data-ready="1"> when done:
// a browser test reads both from the rendered DOM (tests/html_report_test.cpp).
// The page is made in stages (html_report.cpp): head, verdict, heatmap, diagnoses, worst entries,
// one section per run (echo, quantities, charts, checks, notes), the data and the script; the
// charts, the style and script, and the check of a document are in html_report_*.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace rbd {

// InputError naming `file`, the field and what was expected, at the first field the page reads
// that has the wrong type or range: the check of a document read from a file (`rbdref html`,
// reports/html_report_validate.cpp), which may have been edited or damaged by hand.
void validate_audit(const nlohmann::ordered_json& audit, const std::string& file);

// The page of an audit document: one validate_audit accepts, or the one the audit has just made
// (audit/write.cpp, audit_document). The same document gives the same bytes.
std::string audit_html(const nlohmann::ordered_json& audit);

}  // namespace rbd
