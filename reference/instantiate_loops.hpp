// Explicit instantiation of the closed-loop algorithms (RBDA ch. 8) for one scalar
// (reference/instantiate.hpp).
#pragma once

#include "reference/loop_active.hpp"
#include "reference/loop_assembly.hpp"
#include "reference/loop_closure_fig83.hpp"
#include "reference/loop_clusters.hpp"
#include "reference/loop_constraints.hpp"
#include "reference/loop_fd_kkt.hpp"
#include "reference/loop_fd_lambda.hpp"
#include "reference/loop_fd_projection.hpp"
#include "reference/loop_fd_sparse.hpp"
#include "reference/loop_gauss.hpp"
#include "reference/loop_inverse_dynamics.hpp"

#define RBDREF_INSTANTIATE_LOOPS(T)                \
  namespace rbd {                                  \
  RBDREF_LOOP_CONSTRAINTS_INSTANTIATE(, T)         \
  RBDREF_LOOP_GAUSS_INSTANTIATE(, T)               \
  RBDREF_LOOP_FD_KKT_INSTANTIATE(, T)              \
  RBDREF_LOOP_FD_LAMBDA_INSTANTIATE(, T)           \
  RBDREF_LOOP_FD_PROJECTION_INSTANTIATE(, T)       \
  RBDREF_LOOP_ASSEMBLY_INSTANTIATE(, T)            \
  RBDREF_LOOP_CLOSURE_FIG83_INSTANTIATE(, T)       \
  RBDREF_LOOP_INVERSE_DYNAMICS_INSTANTIATE(, T)    \
  RBDREF_LOOP_ACTIVE_INSTANTIATE(, T)              \
  RBDREF_LOOP_CLUSTERS_INSTANTIATE(, T)            \
  RBDREF_LOOP_FD_SPARSE_INSTANTIATE(, T)           \
  }
