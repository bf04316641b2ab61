// Explicit instantiation of the whole reference library for one scalar. Each
// instantiate_<scalar>.cpp includes this file and expands RBDREF_INSTANTIATE_ALL(T) once, so that
// every other translation unit links against these copies (the headers declare them extern).
#pragma once

#include "reference/aba.hpp"
#include "reference/build_model.hpp"
#include "reference/crba.hpp"
#include "reference/energy.hpp"
#include "reference/integrate.hpp"
#include "reference/jacobian.hpp"
#include "reference/jcalc.hpp"
#include "reference/contact.hpp"
#include "reference/contact_dynamics.hpp"
#include "reference/contact_impulse.hpp"
#include "reference/contact_simulation.hpp"
#include "reference/soft_contact.hpp"
#include "reference/state_space.hpp"
#include "reference/contact_force_qp.hpp"
#include "reference/contact_qp.hpp"
#include "reference/lcp.hpp"
#include "reference/loop_active.hpp"
#include "reference/loop_assembly.hpp"
#include "reference/loop_clusters.hpp"
#include "reference/loop_closure_fig83.hpp"
#include "reference/loop_constraints.hpp"
#include "reference/loop_inverse_dynamics.hpp"
#include "reference/loop_fd_kkt.hpp"
#include "reference/loop_fd_lambda.hpp"
#include "reference/loop_fd_projection.hpp"
#include "reference/loop_fd_sparse.hpp"
#include "reference/loop_gauss.hpp"
#include "reference/condition.hpp"
#include "reference/ltdl.hpp"
#include "reference/ltdl_articulated.hpp"
#include "reference/mj_factor.hpp"
#include "reference/rnea.hpp"

#define RBDREF_INSTANTIATE_ALL(T)          \
  namespace rbd {                          \
  RBDREF_JCALC_INSTANTIATE(, T)            \
  RBDREF_MODEL_INSTANTIATE(, T)            \
  RBDREF_RNEA_INSTANTIATE(, T)             \
  RBDREF_CRBA_INSTANTIATE(, T)             \
  RBDREF_LTDL_INSTANTIATE(, T)             \
  RBDREF_LTDL_ARTICULATED_INSTANTIATE(, T) \
  RBDREF_CONDITION_INSTANTIATE(, T)        \
  RBDREF_MJ_FACTOR_INSTANTIATE(, T)        \
  RBDREF_ABA_INSTANTIATE(, T)              \
  RBDREF_ENERGY_INSTANTIATE(, T)           \
  RBDREF_JACOBIAN_INSTANTIATE(, T)         \
  RBDREF_INTEGRATE_INSTANTIATE(, T)        \
  RBDREF_LOOP_CONSTRAINTS_INSTANTIATE(, T) \
  RBDREF_LOOP_GAUSS_INSTANTIATE(, T)       \
  RBDREF_LOOP_FD_KKT_INSTANTIATE(, T)      \
  RBDREF_LOOP_FD_LAMBDA_INSTANTIATE(, T)   \
  RBDREF_LOOP_FD_PROJECTION_INSTANTIATE(, T) \
  RBDREF_LOOP_ASSEMBLY_INSTANTIATE(, T)    \
  RBDREF_LOOP_CLOSURE_FIG83_INSTANTIATE(, T) \
  RBDREF_LOOP_INVERSE_DYNAMICS_INSTANTIATE(, T) \
  RBDREF_LOOP_ACTIVE_INSTANTIATE(, T)      \
  RBDREF_LOOP_CLUSTERS_INSTANTIATE(, T)    \
  RBDREF_LOOP_FD_SPARSE_INSTANTIATE(, T)   \
  RBDREF_LCP_INSTANTIATE(, T)              \
  RBDREF_CONTACT_FORCE_QP_INSTANTIATE(, T) \
  RBDREF_CONTACT_INSTANTIATE(, T)          \
  RBDREF_CONTACT_DYNAMICS_INSTANTIATE(, T) \
  RBDREF_CONTACT_QP_INSTANTIATE(, T)       \
  RBDREF_CONTACT_IMPULSE_INSTANTIATE(, T)  \
  RBDREF_CONTACT_SIMULATION_INSTANTIATE(, T) \
  RBDREF_SOFT_CONTACT_INSTANTIATE(, T)     \
  RBDREF_STATE_SPACE_INSTANTIATE(, T)      \
  }
