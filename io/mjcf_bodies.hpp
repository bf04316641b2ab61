// Private to the MJCF reader (io/mjcf*.cpp): the body tree walk, MJCF bodies into the canonical
// model's bodies (io/mjcf.cpp states the frames), and the equalities that join them afterwards.
#pragma once

#include "io/mjcf_inertia.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rbd::mjcf_detail {

// An element of a body (or of the world) with the <frame>s around it resolved (MuJoCo 3): the
// frames' poses composed, and the class its frames' childclass makes active.
struct Placed {
  const XMLElement* e;
  Pose frame;
  std::string cls;
};
// The children of `parent`, each <frame> replaced by its own children placed in it.
void expand_frames(Ctx& c, const XMLElement* parent, const Pose& frame, const std::string& cls, std::vector<Placed>& out);

struct MjBody {
  std::string name;
  int desc = -1;        // the ModelDesc body holding its frame (the last of its joints'), -1 = world
  V3 offset = zero3();  // its MJCF frame's origin in that body's frame: −a_n (O_B)
  Pose world0;          // its pose in the world at qpos0 (the file's poses composed)
};

// What a body's children are, sorted by kind (sites and ignored elements are recorded as found).
struct BodyElements {
  std::vector<Placed> kids;                 // every child, frames resolved
  std::vector<El> joints;                   // <joint> and <freejoint>, in order
  std::vector<std::pair<El, Pose>> geoms;   // each with the <frame>s around it
  const XMLElement* inertial = nullptr;
};

// A joint as read: its element, MuJoCo type (hinge, slide, ball, free) and name.
struct MjJoint {
  El el;
  std::string type, name;
};

// The walk: MuJoCo's bodies, depth first, into the ModelDesc `d`.
struct Reader {
  Ctx& c;
  const Compiler& comp;
  ModelDesc& d;
  std::vector<MjBody> bodies;  // MuJoCo's bodies: 0 = world
  std::map<std::string, int> body_by_name;
  struct Site { int body; Pose pose; };
  std::map<std::string, Site> sites;
  std::set<std::string> names, joint_names;
  int njoint = 0;
  std::map<std::string, int> ignored;  // body children not read
  bool passive = false;  // some joint has damping, stiffness, friction loss or limits
  std::uint64_t memory_limit = UINT64_MAX;
  std::string memory_source{};

  // The expressions derived so far against the memory limit (io/memory_limit.hpp): a body of
  // millions of geoms in a 64 MiB file would otherwise take gigabytes before anything is computed.
  void check_size(const std::string& file, const std::string& what) const;
  std::string unique(std::string n, std::set<std::string>& used);

  // The body element e, child of MuJoCo body `parent`, with the class its parent makes active and
  // the <frame>s around it; then its child bodies.
  void body(const XMLElement* e, int parent, const std::string& parent_class, const Pose& frame);

 private:
  std::string body_class(const XMLElement* e, const std::string& parent_class, const std::string& file) const;
  std::string body_name(const XMLElement* e, int id, const std::string& file, MjBody& b) const;
  Pose body_pose(const XMLElement* e, const std::string& what, const std::string& file, const Pose& frame);
  BodyElements body_elements(const XMLElement* e, int id, const std::string& cls, const MjBody& b, const std::string& what,
                             const std::string& file);
  std::vector<MjJoint> body_joints(const std::vector<El>& joints, int parent, const std::string& file);
  void weld(MjBody& b, const MjBody& P, const Pose& into, const MassProps& mp, const std::string& inertial_where,
            const std::string& what);
  void joint_chain(MjBody& b, const MjBody& P, const std::vector<MjJoint>& js, const Pose& into, const MassProps& mp,
                   const std::string& inertial_where, const std::string& file);
  Pose joint_motion(const MjJoint& j, Pose o, JointDesc& jd, V3& anchor, const std::string& file);
};

// <equality>: connect and weld as loop joints (RBDA §8.1: spherical and fixed) between the
// walked bodies, the other kinds noted as ignored.
void read_equality(Reader& r, const XMLElement* eq);

}  // namespace rbd::mjcf_detail
