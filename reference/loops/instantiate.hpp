// Explicit instantiation of the closed-loop algorithms (RBDA ch. 8) for one scalar of
// RBDREF_FOR_EACH_SCALAR, in the units it shares with contact (reference/CMakeLists.txt).
#pragma once

#include "reference/loops/active.hpp"
#include "reference/loops/assembly.hpp"
#include "reference/loops/clusters.hpp"
#include "reference/loops/constraints.hpp"
#include "reference/loops/fd_clustered.hpp"
#include "reference/loops/fd_kkt.hpp"
#include "reference/loops/fd_lambda.hpp"
#include "reference/loops/fd_projection.hpp"
#include "reference/loops/fd_sparse.hpp"
#include "reference/loops/gauss.hpp"
#include "reference/loops/inverse_dynamics.hpp"

#define RBDREF_INSTANTIATE_LOOPS(T)                \
  namespace rbd {                                  \
  RBDREF_LOOP_CONSTRAINTS_INSTANTIATE(, T)         \
  RBDREF_LOOP_GAUSS_INSTANTIATE(, T)               \
  RBDREF_LOOP_FD_KKT_INSTANTIATE(, T)              \
  RBDREF_LOOP_FD_LAMBDA_INSTANTIATE(, T)           \
  RBDREF_LOOP_FD_PROJECTION_INSTANTIATE(, T)       \
  RBDREF_LOOP_ASSEMBLY_INSTANTIATE(, T)            \
  RBDREF_LOOP_INVERSE_DYNAMICS_INSTANTIATE(, T)    \
  RBDREF_LOOP_ACTIVE_INSTANTIATE(, T)              \
  RBDREF_LOOP_CLUSTERS_INSTANTIATE(, T)            \
  RBDREF_LOOP_FD_SPARSE_INSTANTIATE(, T)           \
  RBDREF_LOOP_FD_CLUSTERED_INSTANTIATE(, T)        \
  }
