// The fuzz targets: each writes the bytes of one input to a scratch file and reads it with the
// command's own reader of that kind of file, then does what the commands do next with what was read.
//
//   urdf           load_model, without and with --floating-base (read_urdf, then build_model<double>
//                  checks the physics); then, for an accepted model, convert's canonical JSON read
//                  back (read_model_json) and compared, and build_model<bin50> (eval's and fixture's
//                  default precision)
//   model_json     load_model on a canonical JSON model (read_model_json + build_model<double>), then
//                  the same steps as urdf
//   mjcf           load_model on an MJCF model (read_mjcf: defaults, includes, computed numbers,
//                  then build_model<double>), then the same steps as urdf
//   state          read_json_file + read_state against a fixed model with one joint of every type
//                  (state_model_json()), then every number at double and bin50 (to_vec, as eval)
//   fixture        read_fixture_file, then every reference value in MPFR (as compare)
//   engine_output  read_engine_output_file, then epsilon(), model_echo's status, and every
//                  number as a double and in MPFR (as compare and check)
//
// Outcome: bad input must end in rbd::InputError, the exception the command turns into exit 2
// (load_model and read_fixture turn build_model's ModelError into one). Any other exception is a
// finding, since the command would end with "internal error", exit 3; so are crashes, sanitizer
// reports, leaks and hangs, which libFuzzer catches. One known issue is accepted, a ModelError
// from build_model<bin50> (see use_model in harness.cpp).
//
// The same harness is compiled into the fuzzers (fuzz/fuzz_target.cpp, clang + libFuzzer) and into
// the test suite (tests/fuzz_corpus_test.cpp), which replays the committed inputs.
#pragma once

#include <string>
#include <vector>

namespace rbd::fuzz {

struct Target {
  const char* name;                       // "urdf", "model_json", "state", "fixture", "engine_output"
  void (*run)(const std::string& bytes);  // reads the bytes as a file's content; throws on rejection
};

// The five targets, in the order above.
const std::vector<Target>& targets();
// The target named `name`, or nullptr.
const Target* find_target(const std::string& name);

// Runs t on bytes: "" when the bytes were read, or rejected with an InputError; otherwise the
// finding, "<exception type>: <what()>" (a ModelError escaping a reader is one too).
std::string finding(const Target& t, const std::string& bytes);

// The canonical JSON text of the state target's model: a free base, then spherical, revolute,
// prismatic, helical, cylindrical and planar joints in a chain, and a fixed joint at the tip
// (nq = 19, nv = 17; joint names root, ball, hinge, slide, screw, cyl, plane).
const char* state_model_json();

}  // namespace rbd::fuzz
