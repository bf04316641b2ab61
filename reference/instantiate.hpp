// Explicit instantiation of the reference library. Every header of reference/ declares its
// templates extern for each scalar of RBDREF_FOR_EACH_SCALAR (scalar.hpp), so that no translation
// unit but two compiles them: the units cmake/Instantiate.cmake generates for each scalar, which
// expand RBDREF_INSTANTIATE_TREE(T) and RBDREF_INSTANTIATE_LOOPS_AND_CONTACT(T) of the three groups
//   tree     instantiate_tree.hpp     spatial algebra, jcalc, model, RNEA, CRBA, LᵀDL, ABA, ...
//   loops    instantiate_loops.hpp    closed loops (RBDA ch. 8)
//   contact  instantiate_contact.hpp  contact, LCP, impulses, soft contact (RBDA ch. 11)
// Two units per scalar rather than one or three: under clang++ bin50's one unit took 61 s, its two
// 32 + 39 s (+16 % in all, each within issue 12's 60 s); three units cost about twice the one (the
// groups share most of their Eigen and Boost instantiations, which every unit compiles again;
// docs/benchmarks.md, "Build").
#pragma once

#include "reference/instantiate_contact.hpp"
#include "reference/instantiate_loops.hpp"
#include "reference/instantiate_tree.hpp"

#define RBDREF_INSTANTIATE_LOOPS_AND_CONTACT(T) \
  RBDREF_INSTANTIATE_LOOPS(T)                   \
  RBDREF_INSTANTIATE_CONTACT(T)
