// Explicit instantiation of the tree algorithms for one scalar (reference/instantiate.hpp): spatial
// algebra and joints, the model, RNEA, CRBA, the LᵀDL factors, ABA, energy, Jacobians, integration.
#pragma once

#include "reference/aba.hpp"
#include "reference/build_model.hpp"
#include "reference/condition.hpp"
#include "reference/crba.hpp"
#include "reference/crba_base.hpp"
#include "reference/energy.hpp"
#include "reference/integrate.hpp"
#include "reference/jacobian.hpp"
#include "reference/jcalc.hpp"
#include "reference/ltdl.hpp"
#include "reference/ltdl_articulated.hpp"
#include "reference/mj_factor.hpp"
#include "reference/rnea.hpp"

#define RBDREF_INSTANTIATE_TREE(T)         \
  namespace rbd {                          \
  RBDREF_JCALC_INSTANTIATE(, T)            \
  RBDREF_MODEL_INSTANTIATE(, T)            \
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
  }
