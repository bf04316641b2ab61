// The status of one engine × model run of an audit, and its status against the baseline: each an
// enum with one spelling, the one audit.json, baselines, the summary and the HTML page use
// (docs/reports.md).
//
//   RunStatus        passed         the report is within tolerance
//                    failed         the report has a discrepancy
//                    engine failed  the adapter threw (EngineError)
//                    unsupported    the adapter said before running why it cannot run the model
//                    refused        the engine refused the model (EngineRefusal)
//                    not available  no adapter for the engine in this build
//   BaselineStatus   matches | known | regressed | not in baseline   (reports/baseline.hpp)
//
// to_string gives the spelling; parse_run_status / parse_baseline_status read it back (nullopt
// for any other text); spell_list writes a list of them for a message.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

namespace rbd {

enum class RunStatus { Passed, Failed, EngineFailed, Unsupported, Refused, NotAvailable };
enum class BaselineStatus { Matches, Known, Regressed, NotInBaseline };

inline constexpr std::pair<RunStatus, const char*> kRunStatusSpellings[] = {
    {RunStatus::Passed, "passed"},           {RunStatus::Failed, "failed"},   {RunStatus::EngineFailed, "engine failed"},
    {RunStatus::Unsupported, "unsupported"}, {RunStatus::Refused, "refused"}, {RunStatus::NotAvailable, "not available"}};
inline constexpr std::pair<BaselineStatus, const char*> kBaselineStatusSpellings[] = {{BaselineStatus::Matches, "matches"},
                                                                                      {BaselineStatus::Known, "known"},
                                                                                      {BaselineStatus::Regressed, "regressed"},
                                                                                      {BaselineStatus::NotInBaseline, "not in baseline"}};

namespace status_detail {
template <class Status, size_t N>
const char* spell(const std::pair<Status, const char*> (&table)[N], Status s) {
  for (const auto& [status, text] : table)
    if (status == s) return text;
  return "?";
}
template <class Status, size_t N>
std::optional<Status> parse(const std::pair<Status, const char*> (&table)[N], const std::string& text) {
  for (const auto& [status, spelling] : table)
    if (text == spelling) return status;
  return std::nullopt;
}
}  // namespace status_detail

inline const char* to_string(RunStatus s) { return status_detail::spell(kRunStatusSpellings, s); }
inline const char* to_string(BaselineStatus s) { return status_detail::spell(kBaselineStatusSpellings, s); }
inline std::optional<RunStatus> parse_run_status(const std::string& text) { return status_detail::parse(kRunStatusSpellings, text); }
inline std::optional<BaselineStatus> parse_baseline_status(const std::string& text) {
  return status_detail::parse(kBaselineStatusSpellings, text);
}

// A run with a report: it ran and was compared (passed or failed).
inline bool has_report(RunStatus s) { return s == RunStatus::Passed || s == RunStatus::Failed; }

// The spellings of `statuses` in order for a message: "a, b, c" with `last` before the last one
// (", " or " or "), each in double quotes when `quoted`.
template <class Status>
std::string spell_list(std::initializer_list<Status> statuses, const char* last, bool quoted = false) {
  std::string out;
  size_t k = 0;
  for (Status s : statuses) {
    if (k++) out += k == statuses.size() ? last : ", ";
    out += quoted ? "\"" + std::string(to_string(s)) + "\"" : std::string(to_string(s));
  }
  return out;
}

}  // namespace rbd
