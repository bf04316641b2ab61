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
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace rbd {

// InputError naming `file` when audit is not an rbdref.audit document with runs and reports.
std::string audit_html(const nlohmann::ordered_json& audit, const std::string& file);

}  // namespace rbd
