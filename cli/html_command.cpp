// rbdref html AUDIT.json --out REPORT.html
//
// The audit's self-contained HTML report (reports/html_report.hpp) made again from an audit.json,
// e.g. a CI job's artifact; `audit` writes it as DIR/report.html. Exit 0, or 2 on bad input (the
// file, the field and what was expected), nothing written then.
#include "cli/commands.hpp"
#include "reports/html_report.hpp"

#include <iostream>

namespace rbd::cli {

Run add_html(CLI::App& app) {
  auto audit = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("html", "Make the self-contained HTML report of an audit.json (audit writes it as report.html)");
  sub->add_option("audit", *audit, "The audit.json an audit wrote")->required();
  sub->add_option("--out", *out, "HTML file to write (atomically)")->required()->check(nonempty_output);
  return [audit, out] {
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_json_file(*audit).dump());
    validate_audit(doc, *audit);
    const std::string html = audit_html(doc);
    check_distinct_paths({*audit}, {{"--out", *out}});
    write_file_atomic(*out, html);
    if (*out != "-") std::cout << "wrote " << *out << "\n";
    return 0;
  };
}

}  // namespace rbd::cli
