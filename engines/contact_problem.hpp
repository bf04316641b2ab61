// The rigid contact problem of one sample at 50 digits (RBDA ch. 11): what an adapter whose engine
// steps contacts at the velocity level solves that engine's own contact model with, exactly, beside
// the engine's numbers (model_values).
#pragma once

#include "engines/adapter.hpp"
#include "reference/contact/kinematics.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/model.hpp"
#include "reference/tree/rnea.hpp"

#include <Eigen/Cholesky>

namespace rbd {

// At (q, q̇, τ): the contacts' kinematics (T = ck.Tn), H's Cholesky factor, q̈_free = H⁻¹(τ − C),
// H⁻¹T and M = TᵀH⁻¹T. EngineError where H is not positive-definite.
struct ContactProblem {
  ContactKinematics<bin50> ck;
  Eigen::LLT<MatX<bin50>> llt;
  VecX<bin50> qdd_free;
  MatX<bin50> HiT, M;

  ContactProblem(const Model<bin50>& m, const VecX<bin50>& q, const VecX<bin50>& qd, const VecX<bin50>& tau)
      : ck(contact_kinematics<bin50>(m, q, qd)), llt(crba<bin50>(m, q)) {
    if (llt.info() != Eigen::Success) throw EngineError("H is not positive-definite at this sample");
    qdd_free = llt.solve(VecX<bin50>(tau - bias<bin50>(m, q, qd)));
    HiT = llt.solve(ck.Tn);
    M = ck.Tn.transpose() * HiT;
  }
};

}  // namespace rbd
