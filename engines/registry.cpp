// The adapters compiled into this build (engines/CMakeLists.txt decides from the packages found).
#include "engines/adapter.hpp"

#ifdef RBDREF_HAVE_MUJOCO
#include "engines/mujoco/mujoco_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_SIMBODY
#include "engines/simbody/simbody_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_ODE
#include "engines/ode/ode_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_DART
#include "engines/dart/dart_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_BULLET
#include "engines/bullet/bullet_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_MUJOCO_JS
#include "engines/mujoco_js/mujoco_js_adapter.hpp"
#endif
#ifdef RBDREF_HAVE_KDL
#include "engines/kdl/kdl_adapter.hpp"
#endif

namespace rbd {

std::vector<std::unique_ptr<EngineAdapter>> available_adapters() {
  std::vector<std::unique_ptr<EngineAdapter>> out;
#ifdef RBDREF_HAVE_MUJOCO
  out.push_back(make_mujoco_adapter());
  out.push_back(make_mujoco_urdf_adapter());
#endif
#ifdef RBDREF_HAVE_SIMBODY
  out.push_back(make_simbody_adapter());
#endif
#ifdef RBDREF_HAVE_ODE
  out.push_back(make_ode_adapter());
#endif
#ifdef RBDREF_HAVE_DART
  out.push_back(make_dart_adapter());
#endif
#ifdef RBDREF_HAVE_DART_URDF
  out.push_back(make_dart_urdf_adapter());
#endif
#ifdef RBDREF_HAVE_BULLET
  out.push_back(make_bullet_adapter());
#endif
#ifdef RBDREF_HAVE_MUJOCO_JS
  out.push_back(make_mujoco_js_adapter());
  out.push_back(make_mujoco_js_urdf_adapter());
#endif
#ifdef RBDREF_HAVE_KDL
  out.push_back(make_kdl_adapter());
#endif
  return out;
}

}  // namespace rbd
