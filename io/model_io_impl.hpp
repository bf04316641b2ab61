// Private to the model readers and writer (model_json.cpp, loops_contacts.cpp, urdf.cpp): JSON field
// access of the model format and the inertia keys; defined in model_json.cpp unless inline here.
#pragma once

#include "io/model_io.hpp"

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

namespace rbd::io_detail {

const json& member(const json& obj, const char* key, const std::string& file, const std::string& path);


template <size_t N>
std::array<Num, N> num_array(const json& j, const std::string& file, const std::string& path) {
  if (!j.is_array() || j.size() != N)
    throw InputError(file, path, "expected an array of " + std::to_string(N) + " numbers");
  std::array<Num, N> out;
  for (size_t k = 0; k < N; ++k) out[k] = json_num(j[k], file, path + "[" + std::to_string(k) + "]", true);
  return out;
}

inline const char* const kInertiaKeys[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};

// xyz and rpy (or quat) of a frame, as a body's origin is written.
OriginDesc read_origin(const json& o, const std::string& file, const std::string& op, std::initializer_list<const char*> extra);

// A joint's type and motion parameters (axis, pitch, plane_x) from an object holding them.
void read_joint_motion(const json& jj, const std::string& file, const std::string& jp, JointDesc& jd);

}  // namespace rbd::io_detail
