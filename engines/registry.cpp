// The adapters compiled into this build: engines/CMakeLists.txt defines RBDREF_HAVE_<ENGINE> for each
// engine whose package it found. The adapters' headers include none of their engines' own, so all
// are included; a factory is called where its engine's flag is defined.
#include "engines/adapter.hpp"
#include "engines/bullet/bullet_adapter.hpp"
#include "engines/dart/dart_adapter.hpp"
#include "engines/kdl/kdl_adapter.hpp"
#include "engines/mujoco/mujoco_adapter.hpp"
#include "engines/mujoco_js/mujoco_js_adapter.hpp"
#include "engines/ode/ode_adapter.hpp"
#include "engines/simbody/simbody_adapter.hpp"

#include <algorithm>

// RBDREF_BUILT(FLAG): 1 where the build defines FLAG as -DFLAG does (to 1), else 0, usable in an
// expression (the Linux kernel's IS_ENABLED). A factory named only in a discarded `if constexpr`
// branch needs no definition: the adapters this build lacks are never linked.
#define RBDREF_BUILT_PLACEHOLDER_1 0,
#define RBDREF_BUILT_SECOND(ignored, value, ...) value
#define RBDREF_BUILT_TEST(placeholder_or_flag) RBDREF_BUILT_SECOND(placeholder_or_flag 1, 0, 0)
#define RBDREF_BUILT_PASTE(value) RBDREF_BUILT_TEST(RBDREF_BUILT_PLACEHOLDER_##value)
#define RBDREF_BUILT(flag) RBDREF_BUILT_PASTE(flag)

namespace rbd {

const std::vector<std::string>& known_engines() {
  static const std::vector<std::string> k{"mujoco", "mujoco-urdf", "mujoco-mjcf", "mujoco-js", "mujoco-js-urdf", "mujoco-js-mjcf", "dart", "dart-urdf", "kdl",
                                          "simbody", "bullet", "ode", "pinocchio", "rbdl"};
  return k;
}

std::vector<std::unique_ptr<EngineAdapter>> available_adapters() {
  std::vector<std::unique_ptr<EngineAdapter>> out;
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_MUJOCO)) {
    out.push_back(make_mujoco_adapter());
    out.push_back(make_mujoco_urdf_adapter());
    out.push_back(make_mujoco_mjcf_adapter());
  }
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_SIMBODY)) out.push_back(make_simbody_adapter());
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_ODE)) out.push_back(make_ode_adapter());
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_DART)) out.push_back(make_dart_adapter());
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_DART_URDF)) out.push_back(make_dart_urdf_adapter());
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_BULLET)) out.push_back(make_bullet_adapter());
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_MUJOCO_JS)) {
    out.push_back(make_mujoco_js_adapter());
    out.push_back(make_mujoco_js_urdf_adapter());
    out.push_back(make_mujoco_js_mjcf_adapter());
  }
  if constexpr (RBDREF_BUILT(RBDREF_HAVE_KDL)) out.push_back(make_kdl_adapter());
  return out;
}

nlohmann::ordered_json engine_registry() {
  using ojson = nlohmann::ordered_json;
  auto names = [](const std::vector<JointType>& v) {
    std::vector<std::string> r;
    for (JointType t : v) r.push_back(joint_type_name(t));
    return r;
  };
  ojson reg = {{"format", "rbdref.engines"}, {"version", 1}, {"engines", ojson::array()}};
  std::vector<std::string> built;
  for (const auto& a : available_adapters()) {
    const EngineSupport s = a->support();
    built.push_back(a->name());
    reg["engines"].push_back({{"name", a->name()},
                              {"version", a->version()},
                              {"built", true},
                              {"joints", names(s.joints)},
                              {"free_joint_below_root", s.free_below_root},
                              {"loop_joints", names(s.loop_joints)},
                              {"contacts", s.contacts},
                              {"impact", s.impact},
                              {"armature", s.armature},
                              {"quantities", s.quantities},
                              {"import_path", s.import_path},
                              {"imports_source", a->imports_source()},
                              {"contact_model", s.contact_model}});
  }
  for (const std::string& n : known_engines())
    if (std::find(built.begin(), built.end(), n) == built.end()) reg["engines"].push_back({{"name", n}, {"built", false}});
  return reg;
}

}  // namespace rbd
