// rbdref convert MODEL [--floating-base] --out F
//
// Writes the canonical rbdref.model JSON of a model file (URDF or JSON): the import made explicit
// (fixed joints are kept as written; merging happens when a model is built), so that what rbdref
// computes with can be read and diffed.
#include "cli/commands.hpp"
#include "io/model_io.hpp"

#include <iostream>
#include <memory>

namespace rbd::cli {

Run add_convert(CLI::App& app) {
  struct Options {
    std::string model, out;
    bool floating_base = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("convert", "Write the canonical rbdref.model JSON of a URDF or JSON model");
  sub->add_option("model", o->model, "Model file: URDF or rbdref.model JSON")->required();
  sub->add_option("--out", o->out, "JSON file to write (atomically); stdout if absent");
  sub->add_flag("--floating-base", o->floating_base, "URDF: attach the root link to the world by a free joint");
  return [o] {
    UrdfOptions uo;
    uo.floating_base = o->floating_base;
    const LoadedModel lm = load_model(o->model, uo);
    const std::string text = model_to_json(lm.desc).dump(2) + "\n";
    if (o->out.empty()) std::cout << text;
    else write_file_atomic(o->out, text);
    return 0;
  };
}

}  // namespace rbd::cli
