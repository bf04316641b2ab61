// rbdref engines [--json]
//
// The engine registry: every adapter this build has (engines/CMakeLists.txt builds one for each
// engine whose Debian package was found), with the library's own version and what it runs — tree
// joint types, a free joint below the root, loop-joint types, contacts and the impulsive step, the
// quantities its outputs carry, the import path, and the contact model it solves instead of the
// rigid LCP. The engines rbdref knows but this build lacks are listed as not built. `audit` runs
// every engine listed as built. Exit status 0.
#include "cli/commands.hpp"
#include "engines/adapter.hpp"
#include "io/text.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <set>

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;

std::vector<std::string> names(const std::vector<JointType>& v) {
  std::vector<std::string> r;
  for (JointType t : v) r.push_back(joint_type_name(t));
  return r;
}

}  // namespace

Run add_engines(CLI::App& app) {
  auto* sub = app.add_subcommand("engines", "List the engine adapters of this build, their versions and what each runs");
  auto json_out = std::make_shared<bool>(false);
  sub->add_flag("--json", *json_out, "Print the registry as JSON (format rbdref.engines)");
  return [sub, json_out]() -> int {
    (void)sub;
    ojson reg = {{"format", "rbdref.engines"}, {"version", 1}, {"engines", ojson::array()}};
    std::set<std::string> built;
    for (const auto& a : available_adapters()) {
      const EngineSupport s = a->support();
      built.insert(a->name());
      reg["engines"].push_back({{"name", a->name()},
                                {"version", a->version()},
                                {"built", true},
                                {"joints", names(s.joints)},
                                {"free_joint_below_root", s.free_below_root},
                                {"loop_joints", names(s.loop_joints)},
                                {"contacts", s.contacts},
                                {"impact", s.impact},
                                {"quantities", s.quantities},
                                {"import_path", s.import_path},
                                {"contact_model", s.contact_model}});
    }
    for (const std::string& n : known_engines())
      if (!built.count(n)) reg["engines"].push_back({{"name", n}, {"built", false}});
    if (*json_out) {
      std::cout << reg.dump(1) << "\n";
      return 0;
    }
    for (const ojson& e : reg["engines"]) {
      if (!e["built"].get<bool>()) {
        std::cout << e["name"].get<std::string>() << ": not built (no adapter in this build; an engine without one writes the engine-output file itself, docs/formats.md)\n";
        continue;
      }
      std::cout << e["name"].get<std::string>() << " " << e["version"].get<std::string>() << "\n"
                << "  joints:      " << join(e["joints"].get<std::vector<std::string>>())
                << (e["free_joint_below_root"].get<bool>() ? "; free joints anywhere" : "; a free joint only on a root") << "\n"
                << "  loops:       " << (e["loop_joints"].empty() ? std::string("no (trees only)") : join(e["loop_joints"].get<std::vector<std::string>>()))
                << "\n"
                << "  contacts:    "
                << (e["contacts"].get<bool>() ? std::string("frictionless rigid") + (e["impact"].get<bool>() ? ", with the impulsive step" : "") +
                                                    "; solves: " + e["contact_model"].get<std::string>()
                                              : std::string("no"))
                << "\n"
                << "  quantities:  " << join(e["quantities"].get<std::vector<std::string>>()) << "\n"
                << "  import path: " << e["import_path"].get<std::string>() << "\n";
    }
    return 0;
  };
}

}  // namespace rbd::cli
