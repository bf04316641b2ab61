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
    ModelOptions mo;
  };
  auto o = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("convert", "Write the canonical rbdref.model JSON of a URDF, MJCF or JSON model");
  add_model_argument(sub, o->model);
  add_output_option(sub, "--out", o->out, "JSON file to write (atomically); stdout if absent or '-'");
  o->mo.add_to(sub, true);
  return [o] {
    check_outputs({o->model, o->mo.loops, o->mo.contacts}, {{"--out", o->out}});
    const LoadedModel lm = load_model(o->model, o->mo.load_options());
    json doc = model_to_json(lm.desc);
    // What the import ignored or found, beside the model (not part of it: the reader skips it).
    const std::vector<std::string> w = lm.warnings();
    if (!w.empty()) doc["import_notes"] = w;
    const std::string text = doc.dump(2) + "\n";
    print_model_warnings("convert", lm);
    write_document(o->out, text);
    return 0;
  };
}

}  // namespace rbd::cli
