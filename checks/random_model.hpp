// Random kinematic trees and states for property tests and benchmarks, in the spirit of
// spatial_v2's autoTree(nb, bf, skew, taper).
//
// Every number is an exact binary double (Num::exact), so the same description builds the same
// model at every precision and a property can be checked at double and at 50 digits on identical
// inputs. Inertias are physically valid by construction: the rotational inertia about the COM is
// R diag(b+c, a+c, a+b) Rᵀ with second moments a, b, c > 0 (a real mass distribution, so the
// principal moments satisfy the triangle inequality with a margin), rotated by a random R.
#pragma once

#include "reference/tree/model.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace rbd {

struct TreeSpec {
  int nb = 7;                 // bodies in the description (fixed joints among them get merged)
  double branching = 1.0;     // bf: parent(i) = floor((i - 1) / bf); 1 = chain, 2 = binary tree
  double taper = 0.9;         // size and mass of body i scale with taper^depth
  bool floating_base = false; // body 0 on a free joint
  // Joint types drawn uniformly from this list (the root's type is Free when floating_base).
  std::vector<JointType> joints{JointType::Revolute, JointType::Prismatic, JointType::Helical,
                                JointType::Cylindrical, JointType::Planar, JointType::Spherical,
                                JointType::Free, JointType::Fixed};
};

// A random tree; the same (spec, seed) always gives the same model.
ModelDesc random_tree(const TreeSpec& spec, std::uint64_t seed);

// A random state of a model: q with unit quaternions (normalized in double) and joint values in
// [-pi, pi] (angles) or [-1, 1] (lengths); qd, qdd, tau uniform in [-scale, scale].
struct RandomState {
  std::vector<double> q, qd, qdd, tau;
};
RandomState random_state(const Model<double>& model, std::uint64_t seed, double scale = 1.0);

}  // namespace rbd
