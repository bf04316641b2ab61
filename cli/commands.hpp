// Subcommands of `rbdref`. Each registers its options on the app and returns the function that
// runs it; the function returns the exit status (0 ok, 1 discrepancies, 2 bad input) and throws
// InputError for bad input, which main() reports with status 2.
#pragma once

#include <CLI/CLI.hpp>

#include "io/model_io.hpp"
#include "io/quantities.hpp"
#include "certify/precision.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rbd::cli {

using Run = std::function<int()>;

// The options every command that loads a model takes: --floating-base and --inertia.
struct ModelOptions {
  bool floating_base = false;
  std::string inertia = "accept";
  std::string loops;  // --loops FILE (empty: none)
  std::string contacts;  // --contacts FILE (empty: none); registered only by the commands that use contacts
  std::string max_memory;  // --max-memory SIZE (empty: RBDREF_MAX_MEMORY or the machine's); the computing commands
  void add_to(CLI::App* sub, bool with_contacts = false);
  void add_max_memory(CLI::App* sub);
  LoadOptions load_options() const;  // InputError naming --inertia on a bad value
};


// Prints a loaded model's warnings to stderr, one per line, prefixed by the command name.
void print_model_warnings(const char* command, const LoadedModel& lm);

// Check of output options (--out, --report, --junit): an explicitly empty value (an unset shell
// variable, `--out "$OUT"`) is an error, not "no file" or standard output.
inline std::string nonempty_output(const std::string& v) {
  return v.empty() ? "expected a path, got an empty string" : "";
}

// The help of --tol (compare, audit), from the table of quantities.
inline std::string tol_option_help() {
  std::string names;
  for (const std::string& q : quantity_names()) names += (names.empty() ? "" : ", ") + q;
  return "Override a tolerance: QUANTITY=REL, QUANTITY one of " + names + " (repeatable)";
}

// --precision (eval, fixture, assemble, simulate): the option, default bin50, and its value read;
// InputError naming --precision when it is not a precision (certify/precision.hpp).
void add_precision_option(CLI::App* sub, std::string& value, const std::string& help = "");
Precision parse_precision_option(const std::string& value);

// An unsigned 64-bit integer option given as decimal digits (no sign, no wrap-around).
std::uint64_t parse_seed(const std::string& text, const std::string& option);

// The commands, each defined in <name>_command.cpp (upgrade beside fixture).
Run add_eval(CLI::App&), add_convert(CLI::App&), add_fixture(CLI::App&), add_upgrade(CLI::App&), add_compare(CLI::App&),
    add_check(CLI::App&), add_audit(CLI::App&), add_assemble(CLI::App&), add_simulate(CLI::App&), add_engines(CLI::App&),
    add_html(CLI::App&), add_hunt(CLI::App&), add_merge(CLI::App&);

}  // namespace rbd::cli
