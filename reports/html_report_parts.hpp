// The pieces the audit's HTML report (reports/html_report.hpp) is made of, shared by its files:
// tolerant readers of the audit document, number formatting and the digits' colour
// (here), the SVG chart (html_report_chart.cpp), and the page's style and script
// (html_report_script.cpp). Not for use outside the HTML report.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace rbd::html_report {

using ojson = nlohmann::ordered_json;

// Tolerant readers: a field of the wrong type reads as absent (an empty string, NaN, the default,
// a null), so that the page never throws on what validate_audit lets through.
inline std::string str(const ojson& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
inline double num(const ojson& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}
inline bool flag(const ojson& j, const char* key, bool dflt) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : dflt;
}
inline const ojson& field(const ojson& j, const char* key) {
  static const ojson null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

// x printed with printf format f; "–" for NaN (no value).
inline std::string fmt(const char* f, double x) {
  if (std::isnan(x)) return "–";
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

// Background colour of a cell with d digits: red (0) through yellow (8) to green (15 and more).
inline std::string digits_colour(double d) {
  if (std::isnan(d)) return "#eee";
  const double t = std::clamp(d / 15.0, 0.0, 1.0);
  return "hsl(" + fmt("%.0f", 120 * t) + ",70%," + fmt("%.0f", 80 - 10 * t) + "%)";
}

// One point of a chart: x, digits, whether it is outside tolerance (ringed), its label.
struct Point {
  double x, y;
  bool failed;
  std::string label;
};
using Series = std::vector<std::pair<std::string, std::vector<Point>>>;  // name, points

// A scatter/line chart as inline SVG: series of points; y is digits (clamped to the axis, drawn
// with a note when above), x either sample indices (x_ticks: labels under the axis) or a value
// (no x_ticks: about five ticks at a 1, 2 or 5 × 10^k step). lines joins each series' points.
std::string svg_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_ticks,
                      const Series& series, bool lines);

// The page's CSS (the <style> element's text) and its script (the whole <script> element, which
// pivots the embedded #audit-data, reports its errors into #script-errors and sets
// <body data-ready="1">).
extern const char* const kStyle;
extern const char* const kScript;

}  // namespace rbd::html_report
