// The HTML report's style and script (html_report_parts.hpp): constants, so that the page's
// C++ reads as its stages. The script builds the pivot (one quantity as engine × model) from the
// embedded #audit-data, reports its own errors into #script-errors and sets <body data-ready="1">
// as its last step (tests/html_report_test.cpp reads both from the rendered DOM).
#include "reports/html_report_parts.hpp"

namespace rbd::html_report {

const char* const kStyle =
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
    "#script-errors{color:#b00;white-space:pre-wrap}\n";

const char* const kScript = R"JS(<script>
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

}  // namespace rbd::html_report
