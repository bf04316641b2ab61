// The audit's HTML report in a real browser: Debian's Chromium, headless (scripts/setup.sh installs
// it). The audit writes report.html; Chromium renders it (--dump-dom: the DOM after the script ran;
// --screenshot: the pixels). The page must be self-contained (nothing fetched), its script must run
// to the end without an error (it sets <body data-ready="1"> last and reports errors into
// #script-errors), and it must show the heatmap with a row per run and the pivot the script builds.
// A copy with a planted script error is caught by the same reading. `rbdref html` makes the same
// page from audit.json.
#include "io/io_util.hpp"
#include "tests/cli_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

class HtmlReport : public CliFolderTest {
 protected:
  void SetUp() override {
    CliFolderTest::SetUp();
    fs::create_directories(dir_ / "cap");
  }

  // Chromium headless on a local file; returns its exit status. What = "--dump-dom" (stdout to
  // out) or "--screenshot=FILE". A private profile folder, so parallel tests do not share one.
  int chromium(const std::string& what, const std::string& page, const std::string& out) {
    const std::string cmd = "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                            "--user-data-dir=" + path("profile") + " --window-size=1400,1600 " + what + " 'file://" + page + "' >'" +
                            out + "' 2>'" + path("chromium.err") + "'";
    return std::system(cmd.c_str());
  }
};

TEST_F(HtmlReport, RendersInChromiumWithoutScriptErrors) {
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "Chromium is not installed: run scripts/setup.sh (Debian package chromium)";
  const CliRun a = run_rbdref({"audit", "--models", "double_pendulum,far_arm,box_contacts", "--out", path("audit")}, path("cap"));
  ASSERT_EQ(a.status, 0) << a.describe() << a.err;
  const std::string page = path("audit/report.html");
  ASSERT_TRUE(fs::exists(page));
  const std::string html = read_text_file(page);
  // Self-contained: no external script, style, image or font.
  for (const char* bad : {"<link", "src=\"http", "src='http", "url(http", "@import", "href=\"http"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;

  ASSERT_EQ(chromium("--dump-dom", page, path("dom.html")), 0) << read_text_file(path("chromium.err"));
  const std::string dom = read_text_file(path("dom.html"));
  EXPECT_NE(dom.find("data-ready=\"1\""), std::string::npos) << "the script did not run to its end";
  EXPECT_NE(dom.find("<div id=\"script-errors\"></div>"), std::string::npos) << "script errors reported in the page";
  // The heatmap: a row per run of the audit, the far_arm row known (the bundled baseline).
  const json audit = read_json_file(path("audit/audit.json"));
  const size_t tbody = dom.find("<tbody>", dom.find("id=\"heatmap-table\""));
  const std::string table = dom.substr(tbody, dom.find("</tbody>", tbody) - tbody);
  size_t rows = 0;
  for (size_t p = 0; (p = table.find("<tr>", p)) != std::string::npos; ++p) ++rows;
  EXPECT_EQ(rows, audit["runs"].size());
  for (const json& r : audit["runs"])
    EXPECT_NE(table.find(">" + r["engine"].get<std::string>() + "</a></td><td class=\"l\">" + r["model"].get<std::string>() + "<"),
              std::string::npos)
        << r.dump();
  EXPECT_NE(table.find("12.4 known"), std::string::npos);
  // The pivot exists only when the script ran: one row per engine under the header.
  const size_t pv = dom.find("id=\"pivot-table\"");
  ASSERT_NE(pv, std::string::npos);
  std::set<std::string> engines;
  for (const json& r : audit["runs"]) engines.insert(r["engine"].get<std::string>());
  const std::string pivot = dom.substr(pv, dom.find("</table>", pv) - pv);
  size_t pivot_rows = 0;
  for (size_t p = 0; (p = pivot.find("<tr>", p)) != std::string::npos; ++p) ++pivot_rows;
  EXPECT_EQ(pivot_rows, engines.size() + 1);
  // Charts: two per run that has a report (digits per sample, digits against κ(H)).
  size_t svgs = 0, reports = audit["reports"].size();
  for (size_t p = 0; (p = dom.find("<svg class=\"chart\"", p)) != std::string::npos; ++p) ++svgs;
  EXPECT_EQ(svgs, 2 * reports);

  // The screenshot: a PNG, with more in it than a blank page's.
  ASSERT_EQ(chromium("--screenshot=" + path("shot.png"), page, path("shot.out")), 0) << read_text_file(path("chromium.err"));
  ASSERT_EQ(chromium("--screenshot=" + path("blank.png"), write("blank.html", "<!DOCTYPE html><html><body></body></html>"),
                     path("blank.out")),
            0);
  const std::string png = slurp(path("shot.png"));
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 3 * fs::file_size(path("blank.png")));

  // A planted script error is seen: the same reading fails on it.
  std::string broken = html;
  const size_t call = broken.find("if (quantities.length) pivot();");
  ASSERT_NE(call, std::string::npos);
  broken.replace(call, 31, "if (quantities.length) pivott();");
  ASSERT_EQ(chromium("--dump-dom", write("broken.html", broken), path("broken_dom.html")), 0);
  const std::string bdom = read_text_file(path("broken_dom.html"));
  EXPECT_EQ(bdom.find("data-ready=\"1\""), std::string::npos);
  EXPECT_NE(bdom.find("script error: "), std::string::npos) << bdom.substr(0, 2000);

  // `rbdref html` makes the same page from audit.json; a bad audit.json is exit 2, naming the field.
  const CliRun h = run_rbdref({"html", path("audit/audit.json"), "--out", path("again.html")}, path("cap"));
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_EQ(read_text_file(path("again.html")), html);
  // The cap says which digits it is: estimated in this audit (its fixtures carry no proof), proven
  // where a report's cap_kind says so (a fixture made with --prove).
  EXPECT_EQ(html.find("(proven)"), std::string::npos);
  json proven = audit;
  for (json& rep : proven["reports"])
    for (json& q : rep["quantities"]) q["cap_kind"] = "proven";
  const CliRun pr = run_rbdref({"html", write("proven.json", proven.dump()), "--out", path("proven.html")}, path("cap"));
  ASSERT_EQ(pr.status, 0) << pr.err;
  EXPECT_NE(read_text_file(path("proven.html")).find("(proven)"), std::string::npos);
  json bad = audit;
  bad["runs"][0]["engine"] = 7;
  const CliRun b = run_rbdref({"html", write("bad.json", bad.dump()), "--out", path("bad.html")}, path("cap"));
  EXPECT_EQ(b.status, 2) << b.describe();
  EXPECT_NE(b.err.find("runs[0].engine"), std::string::npos) << b.err;
  EXPECT_FALSE(fs::exists(path("bad.html")));
}

}  // namespace
}  // namespace rbd::test
