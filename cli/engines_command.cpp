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

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;

}  // namespace

Run add_engines(CLI::App& app) {
  auto* sub = app.add_subcommand("engines", "List the engine adapters of this build, their versions and what each runs");
  auto json_out = std::make_shared<bool>(false);
  sub->add_flag("--json", *json_out, "Print the registry as JSON (format rbdref.engines)");
  return [sub, json_out]() -> int {
    (void)sub;
    const ojson reg = engine_registry();
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
                << "  armature:    " << (e["armature"].get<bool>() ? "yes" : "no (a model with armature is unsupported)") << "\n"
                << "  quantities:  " << join(e["quantities"].get<std::vector<std::string>>()) << "\n"
                << "  import path: " << e["import_path"].get<std::string>() << "\n";
    }
    return 0;
  };
}

}  // namespace rbd::cli
