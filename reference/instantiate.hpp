// Explicit instantiation of the reference library. Every header of reference/ declares its
// templates extern for each scalar of RBDREF_FOR_EACH_SCALAR (scalar.hpp), so that no translation
// unit but one compiles them: the unit cmake/Instantiate.cmake generates for each scalar, which
// expands RBDREF_INSTANTIATE_ALL(T), i.e. the three groups
//   tree     instantiate_tree.hpp     spatial algebra, jcalc, model, RNEA, CRBA, LᵀDL, ABA, ...
//   loops    instantiate_loops.hpp    closed loops (RBDA ch. 8)
//   contact  instantiate_contact.hpp  contact, LCP, impulses, soft contact (RBDA ch. 11)
// (one unit per group and scalar was measured: about twice the compile time in all, as the groups
// share most of their Eigen and Boost instantiations; docs/benchmarks.md, "Build").
#pragma once

#include "reference/instantiate_contact.hpp"
#include "reference/instantiate_loops.hpp"
#include "reference/instantiate_tree.hpp"

#define RBDREF_INSTANTIATE_ALL(T) \
  RBDREF_INSTANTIATE_TREE(T)      \
  RBDREF_INSTANTIATE_LOOPS(T)     \
  RBDREF_INSTANTIATE_CONTACT(T)
