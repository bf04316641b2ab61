// Subcommands of `rbdref`. Each registers its options on the app and returns the function that
// runs it; the function returns the exit status (0 ok, 1 discrepancies, 2 bad input) and throws
// InputError for bad input, which main() reports with status 2.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace rbd::cli {

using Run = std::function<int()>;

Run add_eval(CLI::App& app);     // eval_command.cpp
Run add_convert(CLI::App& app);  // convert_command.cpp
Run add_fixture(CLI::App& app);  // fixture_command.cpp
Run add_compare(CLI::App& app);  // compare_command.cpp
Run add_check(CLI::App& app);    // check_command.cpp
Run add_audit(CLI::App& app);    // audit_command.cpp

}  // namespace rbd::cli
