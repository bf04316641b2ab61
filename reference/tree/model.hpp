// The model: a kinematic tree in regular numbering (RBDA §4.1.2), built at the precision of T from
// a precision-free description.
//
// Index base: 0 everywhere. Bodies are 0..NB-1; the fixed base is -1, so parent[i] = λ(i) < i and
// λ(i) = -1 means "attached to the base". Joint i connects λ(i) to body i. Degrees of freedom
// are numbered in body order: body i owns v entries iv[i] .. iv[i]+nvi[i]-1 and q entries
// iq[i] .. iq[i]+nqi[i]-1.
//
// ModelDesc keeps every number as it was written (decimal text, read at the precision of T, or
// an exact binary double), so that building a Model<bin50> from a URDF gives the model the file
// states to 50 digits, not its double rounding.
#pragma once

#include "reference/tree/errors.hpp"
#include "reference/tree/jcalc.hpp"

#include <array>
#include <memory>
#include <utility>
#include <optional>
#include <unordered_map>
#include <string>
#include <vector>

namespace rbd {

struct NumExpr;

// A number of a model description: decimal text, an exact binary double, or a number computed
// from written ones (an MJCF reader's quaternion of Euler angles, a geom's inertia: NumExpr),
// evaluated at the precision of T, so that no intermediate double rounds it.
struct Num {
  std::string text;      // decimal text when !is_double; for a computed number its value to 60 digits
  double value = 0;      // the exact value when is_double
  bool is_double = false;
  std::shared_ptr<const NumExpr> expr;  // set for a computed number

  static Num decimal(std::string t) { Num n; n.text = std::move(t); return n; }
  static Num exact(double v) { Num n; n.value = v; n.is_double = true; return n; }
  static Num computed(std::shared_ptr<const NumExpr> e);  // text: e at 60 significant digits
  // The rounding the number may carry as written: half a unit in its last decimal digit, or half
  // an ulp of an exact double (decimal_half_unit; a written zero is exact); for a computed number
  // the written roundings of its inputs carried through to first order.
  double half_unit() const;
  template <class T>
  T as() const;
  // The text as written, or the shortest decimal that reads back as the same double.
  std::string str() const;
  // An exact zero as written (0, 0.0, -0e5, or the double 0); a computed number never is.
  bool is_zero() const;
};

// A computed number: an operation on numbers of the description (leaves are written numbers),
// evaluated at the precision of T by the same operations an algorithm would use (ADL math, π of
// T), so that an interval T encloses it. Operands are shared (a frame composed down a chain uses
// its parent's numbers several times, settotalmass's factor is in every body's mass): a shared
// node is evaluated once per evaluation, or once per NumMemoScope<T> while one is open, so the
// cost is the number of distinct nodes, not of paths through them. Evaluation and release walk
// the operands with a stack of their own, not by recursion: a sum of 10⁵ terms (a body's 10⁵
// geoms) is as safe as a sum of two.
struct NumExpr {
  enum Op { Leaf, Add, Sub, Mul, Div, Neg, Sqrt, Sin, Cos, Pi };
  Op op = Leaf;
  Num leaf;                                  // Leaf
  std::shared_ptr<const NumExpr> a, b;       // operands (b for the binary operations)

  NumExpr();
  NumExpr(const NumExpr&) = delete;
  NumExpr& operator=(const NumExpr&) = delete;
  ~NumExpr();  // releases a chain of sole owners iteratively

  template <class T>
  T eval() const;
  // (value in double, first-order rounding carried from the leaves' half units), each node once.
  std::pair<double, double> value_and_half_unit() const;
  // The number of nodes alive in the process.
  static std::size_t alive();
};

// While open, every evaluation of computed numbers to V in this thread shares one memo of the
// shared nodes (those with more than one owner): each is evaluated once in the scope. The memo
// keeps its nodes alive (an address is never reused for another node while it is in the memo).
// Open one around work that evaluates many numbers sharing operands at one precision
// (build_model; the MJCF reader).
template <class V>
class NumMemoScope {
 public:
  struct Entry {
    std::shared_ptr<const NumExpr> keep;
    V value;
  };
  using Memo = std::unordered_map<const NumExpr*, Entry>;
  NumMemoScope() : prev_(active_) { active_ = this; }
  ~NumMemoScope() { active_ = prev_; }
  NumMemoScope(const NumMemoScope&) = delete;
  NumMemoScope& operator=(const NumMemoScope&) = delete;
  static NumMemoScope* active() { return active_; }
  Memo memo;

 private:
  NumMemoScope* prev_;
  static inline thread_local NumMemoScope* active_ = nullptr;
};

// The operations this thread has evaluated (fold_num_expr's steps): what an evaluation costs, in
// a unit a test can count (tests/mjcf_test.cpp: settotalmass costs linear in the bodies).
inline thread_local std::size_t t_num_expr_operations = 0;

// The post-order fold of `root` with explicit stacks (of nodes to visit and of operand values):
// `leaf(n)` gives a Leaf's or Pi's value, `apply(n, x, y)` an operation's from its operands'
// values (y unused by the unary ones). A node owned more than once is memoized (its value
// reused wherever it is met again); a node with one owner is met once per evaluation of its owner.
template <class V, class LeafFn, class ApplyFn>
V fold_num_expr(const NumExpr& root, typename NumMemoScope<V>::Memo& memo, LeafFn leaf, ApplyFn apply) {
  struct Visit {
    const NumExpr* n;
    const std::shared_ptr<const NumExpr>* owner;  // the operand pointer that led here (null: root)
    bool expanded;
  };
  std::vector<Visit> visits{{&root, nullptr, false}};
  std::vector<V> values;
  while (!visits.empty()) {
    Visit& v = visits.back();
    const NumExpr& n = *v.n;
    if (!v.expanded) {
      if (n.op == NumExpr::Leaf || n.op == NumExpr::Pi) {
        values.push_back(leaf(n));
        visits.pop_back();
        continue;
      }
      if (auto it = memo.find(&n); it != memo.end()) {
        values.push_back(it->second.value);
        visits.pop_back();
        continue;
      }
      v.expanded = true;
      // a's value below b's on the value stack: b is visited after a, so pushed first.
      if (n.b) visits.push_back({n.b.get(), &n.b, false});
      visits.push_back({n.a.get(), &n.a, false});  // `v` may dangle from here on
      continue;
    }
    const std::shared_ptr<const NumExpr>* owner = v.owner;
    visits.pop_back();
    V y = n.b ? std::move(values.back()) : V();
    if (n.b) values.pop_back();
    V x = std::move(values.back());
    values.pop_back();
    ++t_num_expr_operations;
    V r = apply(n, x, y);
    if (owner && owner->use_count() > 1) memo.emplace(&n, typename NumMemoScope<V>::Entry{*owner, r});
    values.push_back(std::move(r));
  }
  return std::move(values.back());
}

template <class T>
T NumExpr::eval() const {
  auto leaf_value = [](const NumExpr& n) -> T { return n.op == Pi ? pi<T>() : n.leaf.as<T>(); };
  auto apply = [](const NumExpr& n, const T& x, const T& y) -> T {
    using std::cos;
    using std::sin;
    using std::sqrt;
    switch (n.op) {
      case Add: return x + y;
      case Sub: return x - y;
      case Mul: return x * y;
      case Div: return x / y;
      case Neg: return -x;
      case Sqrt: return sqrt(x);
      case Sin: return sin(x);
      case Cos: return cos(x);
      default: return T(0);
    }
  };
  if (NumMemoScope<T>* s = NumMemoScope<T>::active()) return fold_num_expr<T>(*this, s->memo, leaf_value, apply);
  typename NumMemoScope<T>::Memo memo;
  return fold_num_expr<T>(*this, memo, leaf_value, apply);
}

template <class T>
T Num::as() const {
  if (expr) return expr->eval<T>();
  return is_double ? T(value) : from_decimal<T>(text);
}
using Num3 = std::array<Num, 3>;

struct JointDesc {
  std::string name;
  JointType type = JointType::Fixed;
  Num3 axis{Num::exact(0), Num::exact(0), Num::exact(1)};  // normalized when built
  Num pitch = Num::exact(0);                               // helical
  std::optional<Num3> plane_x;                             // planar: in-plane x direction
  // Armature: a rotor inertia reflected through a gearbox (MuJoCo's armature, Pinocchio's
  // Model::armature, Drake's reflected inertia), added to H's diagonal at each DoF of the joint.
  // A joint-space term with no spatial counterpart: it enters H, τ = H q̈ + C and the kinetic
  // energy, not the bodies' spatial momentum. ≥ 0. Tree joints only.
  Num armature = Num::exact(0);
};

// Placement of a frame in its parent: translation xyz, then rotation (URDF's rpy, or a
// quaternion (w, x, y, z), normalized when built).
struct OriginDesc {
  Num3 xyz{Num::exact(0), Num::exact(0), Num::exact(0)};
  Num3 rpy{Num::exact(0), Num::exact(0), Num::exact(0)};
  std::optional<std::array<Num, 4>> quat;  // overrides rpy when present
};

// Mass, COM (body frame), and the rotational inertia about the COM given in a frame rotated by
// rpy from the body frame (URDF <inertial>; rpy = 0 in the canonical format): Ic = R I Rᵀ.
struct InertialDesc {
  Num mass = Num::exact(0);
  Num3 com{Num::exact(0), Num::exact(0), Num::exact(0)};
  std::array<Num, 6> I{Num::exact(0), Num::exact(0), Num::exact(0),
                       Num::exact(0), Num::exact(0), Num::exact(0)};  // ixx iyy izz ixy ixz iyz
  Num3 rpy{Num::exact(0), Num::exact(0), Num::exact(0)};
};

struct BodyDesc {
  std::string name;
  int parent = -1;     // index of an earlier body, or -1 for the base
  JointDesc joint;     // joint between parent and this body
  OriginDesc origin;   // joint frame in the parent body's frame (Xtree)
  InertialDesc inertial;
  std::string where;   // field path for messages, e.g. "bodies[3]" or "joint 'elbow' (line 40)"
  std::string inertial_where;  // where the inertial was written, e.g. "bodies[3].inertial" or
                               // "link 'forearm' <inertial> (line 31)"; `where` + ".inertial" if empty
};

// A loop-closing joint k (RBDA §8.1): it connects its predecessor p(k) to its successor s(k), two
// bodies of the spanning tree (or one of them the fixed base), through the joint frames placed by
// X_P and X_S (`origin` of each end: the joint frame in that body's frame, as a tree joint's origin
// places its frame in the parent). The joint's own motion (type, axis, pitch, plane_x; axis in
// joint-frame coordinates) is the same as a tree joint's: jcalc(type, q) maps the predecessor's
// joint frame to the successor's.
struct LoopEndDesc {
  int body = -1;       // index into ModelDesc::bodies, -1 = the fixed base
  OriginDesc origin;   // the joint frame in that body's frame
};
struct LoopJointDesc {
  std::string name;
  JointDesc joint;
  LoopEndDesc pred, succ;
  bool active = false;  // carries a known force τᵃ (§8.6): the state gives it by the joint's name
  std::string where;    // field path for messages: "loop_joints[0]" (model file) or "[0]" (file)
  std::string file;     // the --loops file it came from (empty: the model file)
};

// A point contact (RBDA §11.3): between a predecessor A (a body, or the fixed world) and a
// successor B. The contact point is a point of B (a vertex, given in B's frame); the contact
// surface is a plane of A through `surface` with unit normal `normal` (both in A's frame: world
// coordinates when A is the world), pointing from A into B. The contact force n λ (λ ≥ 0) is
// what A exerts on B. Without `surface` the plane passes through the point's position at the
// evaluated configuration (φ = 0: the contact is closed).
struct ContactDesc {
  std::string name;
  int pred = -1, succ = -1;        // indices into ModelDesc::bodies, -1 = the fixed world
  Num3 point{Num::exact(0), Num::exact(0), Num::exact(0)};
  Num3 normal{Num::exact(0), Num::exact(0), Num::exact(1)};  // normalized when built
  std::optional<Num3> surface;
  // Curved geometry (docs/contact.md): B's side a sphere of radius ρ centred at `point` (absent: a
  // vertex), and A's side a sphere (centre in A's frame, radius R; B outside it, or inside a
  // concave one) instead of the plane of `normal`.
  std::optional<Num> radius;
  struct Sphere {
    Num3 center{Num::exact(0), Num::exact(0), Num::exact(0)};
    Num radius = Num::exact(1);
    bool inside = false;
  };
  std::optional<Sphere> sphere;
  std::optional<Num> friction;     // Coulomb μ ≥ 0 (§11.7 eq. 11.66-, §11.8)
  std::optional<Num> restitution;  // e in [0, 1] (eq. 11.65)
  std::optional<Num> stiffness, damping;  // soft contact K ≥ 0, D > 0 (§11.8, eqs. 11.73-11.75)
  std::optional<Num> tangential_stiffness, tangential_damping;  // K_t, D_t (eqs. 11.77-11.78); default K, D
  std::string where;  // field path for messages: "contacts[0]" (model file) or "[0]" (contacts file)
  std::string file;   // the --contacts file it came from (empty: the model file)
};

struct ModelDesc {
  std::string name;
  std::vector<BodyDesc> bodies;  // parent index < own index
  std::vector<LoopJointDesc> loop_joints;  // canonical model version 2; empty for a tree
  std::vector<ContactDesc> contacts;       // canonical model version 2 ("contacts"); or --contacts
  std::string base_name;  // the fixed base's name in the source (a URDF's root link), or empty
  Num3 gravity{Num::exact(0), Num::exact(0), Num::decimal("-9.81")};
  // What the reader ignored or changed on the way in (a URDF's mimic joints, transmissions, ...),
  // one sentence each, naming the element. Not part of the canonical model (nor of its hash).
  std::vector<std::string> import_notes;
  // The file it was read from (the loader sets it), named by the ModelErrors of build_model. Not
  // part of the canonical model.
  std::string file;
};

// A finding about the physics of the model that is not an error: an inertia that breaks a
// physical bound, within the rounding of its written digits or beyond it. build_model records
// them; the loader (io/model_io.hpp) applies the inertia policy (strict rejects NonPhysical).
struct ModelNote {
  enum Kind {
    RoundingLevel,    // a bound broken by less than the rounding of the written digits: accepted
    NonPhysicalLink,  // a link's own inertial breaks a bound, but the body it is merged into
                      // (what the dynamics sees) is physical: a warning under every policy
    NonPhysical,      // a body of the model (after fixed-joint merging) breaks a bound
  } kind;
  std::string field;    // as the user wrote it: "link 'trunk' <inertial> (line 12)", "bodies[2].inertial"
  std::string message;  // what is wrong, with the numbers
};
const char* note_kind_name(ModelNote::Kind k);

// A loop joint built at the precision of T (RBDA §8.1, table 8.4's model data). p and s are model
// bodies (after fixed-joint merging; -1 = base); XP = p(k),kX_p(k) and XS = s(k),kX_s(k), the joint
// frame on each side from the body frame (a link merged into its host carries its frame along).
template <class T>
struct LoopJoint {
  std::string name;
  Joint<T> joint;
  int p = -1, s = -1;
  Xform<T> XP, XS;
  bool active = false;
  int nc = 0;   // constraints it imposes: 6 - nv of its type (n_k^c)
  int row = 0;  // its first row in K, k, λ
};

// A contact built at the precision of T (RBDA §11.3): p = pc(i), s = sc(i) model bodies (after
// fixed-joint merging; -1 = the world). `point` is in s's body frame, `normal` (unit) and
// `surface` in p's body frame (world coordinates when p = -1).
template <class T>
struct Contact {
  std::string name;
  int p = -1, s = -1;
  Vec3<T> point, normal, surface;
  bool has_surface = false;
  T radius = T(0);                   // B's sphere (0: a vertex); `point` is its centre
  bool on_sphere = false, inside = false;  // A's surface a sphere (centre, R), B outside or inside it
  Vec3<T> center;
  T R = T(0);
  bool has_friction = false, has_restitution = false, has_soft = false;
  T mu = T(0), e = T(0), K = T(0), D = T(0), Kt = T(0), Dt = T(0);  // a soft contact has D > 0
};

template <class T>
struct Model {
  std::string name;
  int NB = 0;                        // number of bodies (after merging fixed joints)
  int nq = 0, nv = 0;                // sizes of q and of v (qd, qdd, tau)
  std::vector<int> parent;           // λ(i) (NB), -1 = base
  std::vector<Joint<T>> joint;       // joint i (NB)
  std::vector<Xform<T>> Xtree;       // iXλ(i) at q = 0 before the joint: the joint frame in λ(i) (NB)
  std::vector<Inertia<T>> I;         // spatial inertia of body i in body coordinates (NB)
  std::vector<int> iq, nqi, iv, nvi; // q and v ranges of joint i (NB)
  std::vector<std::string> body_name, joint_name;  // (NB)
  std::vector<int> dof_parent;       // λ over DoFs (nv): previous DoF of the same joint, else the
                                     // last DoF of the nearest ancestor joint with DoFs, else -1
  std::vector<int> dof_body;         // body owning each DoF (nv)
  std::vector<T> armature;           // added to H's diagonal, per DoF (nv; JointDesc::armature)
  bool has_armature = false;         // some armature is non-zero
  Vec3<T> gravity;                   // a_g, linear, base coordinates
  // Bodies of the description merged into each body through fixed joints, with their frames.
  struct Merged { std::string name; int body; Xform<T> X; };  // X = frame of `name` from body's frame
  std::vector<Merged> merged;
  std::vector<ModelNote> notes;      // physics findings that are not errors (see ModelNote)
  std::vector<LoopJoint<T>> loops;   // loop joints, in the order of the description (N_L)
  int nc = 0;                        // n^c = Σ n_k^c, the rows of K
  std::vector<Contact<T>> contacts;  // point contacts (§11.3), in the order of the description (n_c)

  // Gravity as a spatial acceleration of the base, a_g = [0; g]; algorithms use a_0 = -a_g.
  Motion<T> a_grav() const { return Motion<T>(Vec3<T>::Zero(), gravity); }
};

// Builds the model at the precision of T: reads every number at that precision, normalizes axes,
// applies inertial rotations as R I Rᵀ, and merges bodies attached by fixed joints into their
// parent (their inertia is added, their children re-attached with the composed Xtree).
// Validates as it goes and throws ModelError naming the field: parent order, zero axis, planar
// plane_x parallel to the normal, negative mass, a number out of the range of T.
// Inertias are checked on the bodies the dynamics sees (after merging), not on the links as
// written: principal moments about the COM non-negative and meeting the triangle inequality,
// with a tolerance of the rounding of the written digits: -λ0 and (λ2 - λ0 - λ1) / 3 against
// ‖u‖_F (u the half units of the six entries, summed over merged links) + 100 ε_T λmax. Violations are not thrown: they are
// recorded in Model::notes (RoundingLevel, NonPhysicalLink, NonPhysical) for the loader's policy.
template <class T>
Model<T> build_model(const ModelDesc& desc);

#define RBDREF_MODEL_INSTANTIATE(EXT, T) EXT template Model<T> build_model<T>(const ModelDesc&);
RBDREF_EXTERN_FOR_EACH_TREE_SCALAR(RBDREF_MODEL_INSTANTIATE)

}  // namespace rbd
