// Private to the MJCF reader (io/mjcf*.cpp): a body's mass properties as MuJoCo's compiler derives
// them, as exact expressions of the numbers written.
//
//   body_mass       the <inertial> as written, or the sum of the body's geoms (inertiafromgeom:
//                   "auto" uses the geoms when the body has no <inertial>, "true" always, "false"
//                   never: a body without an <inertial> is massless), only the geoms whose group
//                   is within inertiagrouprange and whose mass or density is not 0;
//   a geom's part   MuJoCo's solid formulas (src/user/user_objects.cc: mjCGeom::GetVolume, then
//                   mjCGeom::SetInertia's principal moments): sphere, capsule (a cylinder and two
//                   hemispheres), cylinder, ellipsoid, box; `mass` or density × volume (density
//                   1000 by default); a mesh, plane, height field, SDF or shell inertia is refused
//                   rather than guessed; the parts combined about their common COM by the
//                   parallel-axis theorem;
//   compiler bounds <compiler boundmass boundinertia> on each body's own mass and principal moments,
//                   then settotalmass scaling every mass and inertia (MuJoCo's XML reference,
//                   <compiler>), as the compiler applies them after the tree.
#pragma once

#include "io/mjcf_attributes.hpp"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rbd::mjcf_detail {

// Mass, COM and rotational inertia about the COM (body axes, six entries ixx iyy izz ixy ixz iyz).
struct MassProps {
  X m = X::of(0);
  V3 c = zero3();
  std::array<X, 6> I{X::of(0), X::of(0), X::of(0), X::of(0), X::of(0), X::of(0)};
};

// <compiler>'s mass settings.
struct Compiler {
  std::string inertiafromgeom = "auto";
  double group_lo = 0, group_hi = 5;
  std::optional<Num> boundmass, boundinertia, settotalmass;
};

// The mass properties of the body `body_name` (`what` in messages) in its MJCF frame: from its
// <inertial> (null: none) or its geoms (each with the <frame>s around it), by inertiafromgeom;
// `inertial_where` is set to what the body's inertia is reported as. `check_size` is called every
// 1024 geoms (the memory guard of a body of very many).
MassProps body_mass(Ctx& c, const Compiler& comp, const XMLElement* inertial, const std::vector<std::pair<El, Pose>>& geoms,
                    const std::string& file, const std::string& body_name, const std::string& what, std::string& inertial_where,
                    const std::function<void()>& check_size);

// boundmass, boundinertia, then settotalmass, on the model's bodies, each change noted.
void apply_compiler_bounds(ModelDesc& d, const Compiler& comp, const std::string& file, std::vector<std::string>& notes);

}  // namespace rbd::mjcf_detail
