// Explicit instantiation of the tree algorithms (RBDA ch. 3-7, MuJoCo's mj_factorM) for one scalar
// of RBDREF_FOR_EACH_TREE_SCALAR: joints, the model, RNEA, CRBA, the LᵀDL factors, ABA, energy,
// Jacobians, integration, the state-space form. Every header below declares its instantiations
// extern; the units cmake/Instantiate.cmake generates from this header (reference/tree/CMakeLists.txt)
// are the only ones that compile them.
#pragma once

#include "reference/tree/aba.hpp"
#include "reference/tree/build_model.hpp"
#include "reference/tree/condition.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/crba_base.hpp"
#include "reference/tree/energy.hpp"
#include "reference/tree/integrate.hpp"
#include "reference/tree/jacobian.hpp"
#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/ltdl_articulated.hpp"
#include "reference/tree/mj_factor.hpp"
#include "reference/tree/natural_scale.hpp"
#include "reference/tree/rnea.hpp"
#include "reference/tree/state_space.hpp"

#define RBDREF_INSTANTIATE_TREE(T)         \
  namespace rbd {                          \
  RBDREF_JCALC_INSTANTIATE(, T)            \
  RBDREF_MODEL_INSTANTIATE(, T)            \
  RBDREF_KINEMATICS_INSTANTIATE(, T)       \
  RBDREF_RNEA_INSTANTIATE(, T)             \
  RBDREF_CRBA_INSTANTIATE(, T)             \
  RBDREF_CRBA_BASE_INSTANTIATE(, T)        \
  RBDREF_LTDL_INSTANTIATE(, T)             \
  RBDREF_LTDL_ARTICULATED_INSTANTIATE(, T) \
  RBDREF_CONDITION_INSTANTIATE(, T)        \
  RBDREF_MJ_FACTOR_INSTANTIATE(, T)        \
  RBDREF_ABA_INSTANTIATE(, T)              \
  RBDREF_ENERGY_INSTANTIATE(, T)           \
  RBDREF_JACOBIAN_INSTANTIATE(, T)         \
  RBDREF_INTEGRATE_INSTANTIATE(, T)        \
  RBDREF_STATE_SPACE_INSTANTIATE(, T)      \
  RBDREF_NATURAL_SCALE_INSTANTIATE(, T)    \
  }
