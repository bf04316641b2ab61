// Subcommands of `rbdref`, and what they share (cli/commands.cpp). Each registers its options on
// the app and returns the function that runs it; the function returns the exit status (0 ok, 1
// discrepancies, 2 bad input) and throws InputError for bad input, which main() reports with
// status 2. A command runs as stages: its options checked, its outputs checked (check_outputs),
// its inputs read, the computation, its outputs written (write_document) and its summary printed.
#pragma once

#include <CLI/CLI.hpp>

#include "io/model_io.hpp"
#include "io/quantities.hpp"
#include "io/state_io.hpp"
#include "certify/precision.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
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

// A command whose options are an Options with `void add_to(CLI::App*)`, which registers them: the
// subcommand `name`, and the Run that calls run(options) once they are read.
template <class Options>
Run add_command(CLI::App& app, const std::string& name, const std::string& help, int (*run)(const Options&)) {
  auto o = std::make_shared<Options>();
  o->add_to(app.add_subcommand(name, help));
  return [o, run] { return run(*o); };
}

// The MODEL argument of the commands that load one: required, its help the formats read, then
// `more` (what else the command needs of it).
CLI::Option* add_model_argument(CLI::App* sub, std::string& model, const std::string& more = "");
// An output option (--out, --report, --junit): a path, an explicitly empty one refused
// (nonempty_output).
CLI::Option* add_output_option(CLI::App* sub, const std::string& name, std::string& path, const std::string& help);

// A command's outputs, (option, path), checked before any input is read: each distinct from the
// inputs and from the others (check_distinct_paths), and each given one ("" is not given; "-" is
// standard output) a path an output may go to (check_output_path).
void check_outputs(const std::vector<std::string>& inputs, const std::vector<std::pair<std::string, std::string>>& outputs);
// A command's document: to standard output when `path` is "-" or not given (""), else written to
// `path` atomically.
void write_document(const std::string& path, const std::string& text);
// The last lines of a command that wrote its document to `out` whether it succeeded or not
// (assemble, simulate): "  <failed>: <message>" on standard error when it did not succeed, then
// "  wrote <out>" unless the document went to standard output; the exit status, 0 or 1.
int finish_document(bool ok, const std::string& failed, const std::string& message, const std::string& out);

// The --state file of a model command, read against the model's layout; with a precision, its
// angles checked reducible at it (certify/evaluate.hpp; eval --prove encloses every sine instead).
StateDesc read_state_option(const std::string& path, const Model<double>& layout, const Precision* reducible_at);

// f.template operator()<T>() at precision p (with_precision); a model number p cannot hold
// (ModelError) is InputError naming the model file, its field and --precision.
template <class F>
void run_at_precision(const Precision& p, const std::string& model, F&& f) {
  try {
    with_precision(p, std::forward<F>(f));
  } catch (const ModelError& e) {
    throw InputError(model, e.field(), std::string(e.what()).substr(e.field().size() + 2) + " (--precision " + p.name() + ")");
  }
}

// An unsigned 64-bit integer option given as decimal digits (no sign, no wrap-around).
std::uint64_t parse_seed(const std::string& text, const std::string& option);

// The commands, each defined in <name>_command.cpp (upgrade beside fixture).
Run add_eval(CLI::App&), add_convert(CLI::App&), add_fixture(CLI::App&), add_upgrade(CLI::App&), add_compare(CLI::App&),
    add_check(CLI::App&), add_audit(CLI::App&), add_assemble(CLI::App&), add_simulate(CLI::App&), add_engines(CLI::App&),
    add_html(CLI::App&), add_hunt(CLI::App&), add_merge(CLI::App&);

}  // namespace rbd::cli
