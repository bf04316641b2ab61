// The engine adapter interface. An adapter loads a fixture's model into a real engine, runs the
// engine on every sample, converts what it computed into rbdref's canonical conventions (keeping
// the raw values), and returns an engine output (io/engine_output.hpp). Engines that do not
// run on this machine skip this interface and write the engine-output file themselves.
//
// Adapters are compiled only when their engine's Debian package is found (see engines/CMakeLists.txt);
// available_adapters() lists those of this build.
#pragma once

#include "io/engine_output.hpp"
#include "fixtures/fixture.hpp"
#include "reference/tree/jcalc.hpp"

#include <memory>
#include <string>
#include <vector>

namespace rbd {

// What an adapter runs, as `rbdref engines` lists it. Declared by each adapter and checked against
// its own `unsupported` and its outputs by tests/engines_test.cpp.
struct EngineSupport {
  std::vector<JointType> joints;        // tree joint types it represents (fixed joints are merged before)
  bool free_below_root = false;         // a free joint on a body whose parent is not the world
  std::vector<JointType> loop_joints;   // loop-joint types it closes (empty: trees only)
  bool contacts = false;                // frictionless rigid point contacts: contact_* quantities
  bool impact = false;                  // the impulsive step: impact_* quantities
  bool armature = false;                // joint armature (JointDesc::armature): rotor inertia on H's diagonal
  std::vector<std::string> quantities;  // every quantity its outputs can carry
  std::string import_path;              // how the model reaches the engine
  std::string contact_model;            // what the engine solves instead of the rigid LCP (empty: no contacts)
};

class EngineAdapter {
 public:
  virtual ~EngineAdapter() = default;
  virtual std::string name() const = 0;     // "mujoco"
  virtual std::string version() const = 0;  // the library's own version string
  // Empty when the engine can represent the fixture's model; otherwise why not, naming the joint
  // or body (e.g. "joint 'screw': MuJoCo has no helical joint"). Such a pair is reported as
  // unsupported, not as a discrepancy.
  virtual std::string unsupported(const Fixture& f) const = 0;
  virtual EngineSupport support() const = 0;
  // Runs every sample. Throws EngineError when the engine refuses the model (its message kept).
  virtual EngineOutput run(const Fixture& f, const std::string& fixture_file) const = 0;
  // An adapter that audits an engine's own import path (MuJoCo's or DART's URDF reader) loads the
  // model's source file itself: the audit gives it the file the fixture's model was read from.
  // run() without it is an EngineError for such an adapter; the others ignore the source.
  virtual bool imports_source() const { return false; }
  virtual EngineOutput run_source(const Fixture& f, const std::string& fixture_file, const std::string& source) const {
    (void)source;
    return run(f, fixture_file);
  }
};

class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The engine refuses the model as the user wrote it, for a reason of its own that rbdref does not
// share (MuJoCo checks each URDF link's own inertia before it fuses fixed links; rbdref checks the
// fused body): the audit reports the run as "refused" with the engine's words, not as a failure.
class EngineRefusal : public EngineError {
 public:
  using EngineError::EngineError;
};

std::vector<std::unique_ptr<EngineAdapter>> available_adapters();

// The engines rbdref knows by name (`audit --engines`, `rbdref engines`), built in this build or
// not: every adapter's name, and the engines that write their outputs themselves.
const std::vector<std::string>& known_engines();
// The registry as a document (format "rbdref.engines", version 1; `rbdref engines --json`, the
// Python module's rbdref.engines()): per built adapter its name, version, joints, free joints
// below the root, loop joints, contacts, impact, armature, quantities, import path and contact
// model; then the known engines this build lacks, {"name", "built": false}.
nlohmann::ordered_json engine_registry();

}  // namespace rbd
