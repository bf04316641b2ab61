// rbdref: reference values for rigid-body dynamics, with the digits that are certified.
// Exit status: 0 ok, 1 discrepancies found, 2 bad input (message names file, field, expectation).
#include "cli/commands.hpp"
#include "io/io_util.hpp"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"rbdref: reference values for rigid-body dynamics engines, with certified digits"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rbdref 0.1.0");
  const std::vector<std::pair<std::string, rbd::cli::Run>> commands = {
      {"eval", rbd::cli::add_eval(app)},       {"convert", rbd::cli::add_convert(app)},
      {"fixture", rbd::cli::add_fixture(app)}, {"compare", rbd::cli::add_compare(app)},
      {"check", rbd::cli::add_check(app)},     {"audit", rbd::cli::add_audit(app)}};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    for (const auto& [name, run] : commands)
      if (app.got_subcommand(name)) return run();
  } catch (const rbd::InputError& e) {
    std::cerr << "rbdref: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rbdref: internal error: " << e.what() << "\n";
    return 3;
  }
  return 2;
}
