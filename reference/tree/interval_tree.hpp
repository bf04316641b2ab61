// The tree algorithms on the interval scalar (reference/numeric/interval.hpp): the same templates
// as every other scalar, instantiated for Interval once, in interval_tree.cpp. Only the
// algorithms whose every branch is structural or a certain comparison are listed: joints, the
// model, kinematics, RNEA, CRBA (both forms), the LᵀDL factors (table 6.3 and the articulated
// route; a pivot not proven positive throws Undecided or reports the factor not ok), mj_factorM,
// ABA, energy and momentum, Jacobians. The eigenvalue and Lanczos estimates (condition.hpp), the
// natural scales and the integrators decide by thresholds: they are not instantiated here.
#pragma once

#include "reference/numeric/interval.hpp"
#include "reference/tree/aba.hpp"
#include "reference/tree/build_model.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/crba_base.hpp"
#include "reference/tree/energy.hpp"
#include "reference/tree/jacobian.hpp"
#include "reference/tree/jcalc.hpp"
#include "reference/tree/kinematics.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/ltdl_articulated.hpp"
#include "reference/tree/mj_factor.hpp"
#include "reference/tree/rnea.hpp"

#define RBDREF_INSTANTIATE_INTERVAL_TREE(EXT)              \
  namespace rbd {                                          \
  RBDREF_JCALC_INSTANTIATE(EXT, Interval)                  \
  RBDREF_MODEL_INSTANTIATE(EXT, Interval)                  \
  RBDREF_KINEMATICS_INSTANTIATE(EXT, Interval)             \
  RBDREF_RNEA_INSTANTIATE(EXT, Interval)                   \
  RBDREF_CRBA_INSTANTIATE(EXT, Interval)                   \
  RBDREF_CRBA_BASE_INSTANTIATE(EXT, Interval)              \
  RBDREF_LTDL_INSTANTIATE(EXT, Interval)                   \
  RBDREF_LTDL_ARTICULATED_INSTANTIATE(EXT, Interval)       \
  RBDREF_MJ_FACTOR_INSTANTIATE(EXT, Interval)              \
  RBDREF_ABA_INSTANTIATE(EXT, Interval)                    \
  RBDREF_ENERGY_INSTANTIATE(EXT, Interval)                 \
  RBDREF_JACOBIAN_INSTANTIATE(EXT, Interval)               \
  }

RBDREF_INSTANTIATE_INTERVAL_TREE(extern)
