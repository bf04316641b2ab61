// The HTML report's charts as inline SVG (html_report_parts.hpp, svg_chart).
#include "io/xml_escape.hpp"
#include "reports/html_report_parts.hpp"

#include <sstream>

namespace rbd::html_report {

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                          "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#843c39"};

}  // namespace

std::string svg_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_ticks,
                      const Series& series, bool lines) {
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

}  // namespace rbd::html_report
