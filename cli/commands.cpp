// What the commands share (commands.hpp): the model and precision options, the outputs' checks
// and writing, the state file, the seed.
#include "cli/commands.hpp"
#include "certify/evaluate.hpp"

#include <cerrno>
#include <cstdlib>
#include <iostream>

namespace rbd::cli {

void ModelOptions::add_to(CLI::App* sub, bool with_contacts) {
  sub->add_flag("--floating-base", floating_base, "URDF: attach the root link to the world by a free joint");
  sub->add_option("--inertia", inertia,
                  "Inertias that break a physical bound beyond the rounding of their digits: accept (compute with them as "
                  "given, report them; default) or strict (reject the model)");
  sub->add_option("--loops", loops,
                  "Loop joints closing kinematic loops (RBDA ch. 8), a JSON file (docs/formats.md): each names its "
                  "predecessor and successor link and the joint frames in them");
  if (with_contacts)
    sub->add_option("--contacts", contacts,
                    "Point contacts (RBDA ch. 11), a JSON file (docs/formats.md): each names its link (against the world) or "
                    "its two links, the point (in the successor's frame) and the normal");
}

void ModelOptions::add_max_memory(CLI::App* sub) {
  sub->add_option("--max-memory", max_memory,
                  "Refuse a model whose estimated memory exceeds SIZE (bytes, or with K, M, G, T; default RBDREF_MAX_MEMORY, "
                  "else 3/4 of the physical memory)");
}

LoadOptions ModelOptions::load_options() const {
  LoadOptions lo;
  lo.floating_base = floating_base;
  lo.loops_file = loops;
  lo.contacts_file = contacts;
  if (!inertia_policy_from_name(inertia, lo.inertia))
    throw InputError("--inertia", "", "expected accept or strict, got '" + inertia + "'");
  return lo;
}

void add_precision_option(CLI::App* sub, std::string& value, const std::string& help) {
  sub->add_option("--precision", value,
                  help.empty() ? "double | longdouble | float128 | bin50 | bin100 | mpfr:<digits> (default bin50)" : help);
}

Precision parse_precision_option(const std::string& value) {
  const std::optional<Precision> p = Precision::parse(value);
  if (!p)
    throw InputError("--precision", "", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits> (10..10000), got '" +
                                            value + "'");
  return *p;
}

void print_model_warnings(const char* command, const LoadedModel& lm) {
  for (const std::string& w : lm.warnings()) std::cerr << "rbdref " << command << ": warning: " << lm.file << ": " << w << "\n";
}

std::uint64_t parse_seed(const std::string& text, const std::string& option) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    throw InputError(option, "", "expected an integer from 0 to 18446744073709551615, got '" + text + "'");
  return v;
}

CLI::Option* add_model_argument(CLI::App* sub, std::string& model, const std::string& more) {
  return sub->add_option("model", model, "Model file: URDF, MJCF or rbdref.model JSON" + more)->required();
}

CLI::Option* add_output_option(CLI::App* sub, const std::string& name, std::string& path, const std::string& help) {
  return sub->add_option(name, path, help)->check(nonempty_output);
}

void check_outputs(const std::vector<std::string>& inputs, const std::vector<std::pair<std::string, std::string>>& outputs) {
  check_distinct_paths(inputs, outputs);
  for (const auto& [option, path] : outputs)
    if (!path.empty() && path != "-") check_output_path(path);
}

void write_document(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") std::cout << text;
  else write_file_atomic(path, text);
}

int finish_document(bool ok, const std::string& failed, const std::string& message, const std::string& out) {
  if (!ok) std::cerr << "  " << failed << ": " << message << "\n";
  if (out != "-") std::cerr << "  wrote " << out << "\n";
  return ok ? 0 : 1;
}

StateDesc read_state_option(const std::string& path, const Model<double>& layout, const Precision* reducible_at) {
  const StateDesc state = read_state(read_json_file(path, kSmallInput), path, layout);
  if (reducible_at) check_angles_reducible(layout, state, *reducible_at, path);
  return state;
}

}  // namespace rbd::cli
