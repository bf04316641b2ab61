// The `rbdref eval` document (eval_document.hpp).
#include "reports/eval_document.hpp"

#include "checks/contact_checks.hpp"
#include "checks/properties.hpp"
#include "fixtures/fixture.hpp"

#include <algorithm>
#include <sstream>

namespace rbd {

using ojson = nlohmann::ordered_json;

std::vector<int> parse_actuated(const std::string& spec, const Model<double>& layout) {
  std::vector<int> actuated;
  if (!spec.empty()) {
    if (layout.nc == 0)
      throw InputError("--actuated", "", "closed-loop inverse dynamics (RBDA §8.12) needs loop joints; this model is a tree "
                                        "(its inverse dynamics is the `tau` of every evaluation)");
    const std::vector<std::string> names = dof_names(layout);
    std::string rest = spec;
    while (true) {
      const size_t comma = rest.find(',');
      const std::string name = rest.substr(0, comma);
      if (name == "all") {
        for (int c = 0; c < layout.nv; ++c) actuated.push_back(c);
      } else {
        int found = -1;
        for (size_t c = 0; c < names.size(); ++c)
          if (names[c] == name) found = static_cast<int>(c);
        if (found < 0) {
          std::string known;
          for (size_t c = 0; c < names.size() && c < 16; ++c) known += (c ? ", " : "") + names[c];
          throw InputError("--actuated", "", "unknown DoF '" + name + "' (expected comma-separated DoF names: " + known +
                                                (names.size() > 16 ? ", ..." : "") + "; or all)");
        }
        for (int c : actuated)
          if (c == found) throw InputError("--actuated", "", "DoF '" + name + "' is given twice");
        actuated.push_back(found);
      }
      if (comma == std::string::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  return actuated;
}

CertifiedEvaluation certified_evaluation(const LoadedModel& lm, const StateDesc& state, const Precision& p,
                                       const std::vector<int>& actuated, bool impact, const std::string& model_file) {
  CertifiedEvaluation out{Evaluation(), p, p.check(), {}, {}};
  try {  // a number the precision cannot represent (1e400 at double) is bad input, named
    out.ev = evaluate_certified(p, lm.desc, state, actuated, impact, true, EvaluationText::Deferred, &out.checks);
  } catch (const ModelError& e) {
    throw InputError(model_file, e.field(), std::string(e.what()).substr(e.field().size() + 2) + " (--precision " + p.name() + ")");
  }
  return out;
}

namespace {

// The `loops` section (docs/formats.md): rank, mobility, the rank decision, the state's
// consistency, the loop quantities with their digits, the methods' agreement, clusters, the
// closed-loop inverse dynamics.
ojson loops_json(const Evaluation& ev) {
  const LoopSummary& L = ev.loops;
  ojson lj;
  lj["n_constraints"] = L.n_constraints;
  lj["rank"] = L.rank;
  lj["mobility"] = L.mobility;
  lj["redundant"] = L.redundant;
  lj["properly_constrained"] = L.redundant == 0;
  lj["rank_decision"] = {{"method", "Gaussian elimination with complete pivoting (RBDA §8.8)"},
                         {"threshold", L.rank_threshold}, {"smallest_pivot_kept", L.smallest_pivot},
                         {"largest_entry_dropped", L.largest_dropped},
                         {"rank_by_method", {{"kkt", L.rank_by_method[0]}, {"lambda_first", L.rank_by_method[1]},
                                             {"projection", L.rank_by_method[2]}}}};
  lj["independent_coordinates"] = L.independent;
  if (!L.coordinates_differ.empty()) lj["coordinates_differ"] = L.coordinates_differ;
  lj["consistent"] = L.consistent;
  lj["consistency_resolution"] = L.consistency_resolution;
  lj["position_error"] = {{"max_abs_delta", L.position_error}, {"tolerance", L.position_tolerance}};
  lj["velocity_error"] = {{"max_abs_K_qd", L.velocity_error}, {"tolerance", L.velocity_tolerance}};
  lj["lambda_uniqueness"] = L.lambda_unique ? "unique" : "minimum_norm";
  lj["frame"] = "loop-local (each loop's successor joint frame)";
  ojson ldig, lnorm;
  for (const Quantity& q : ev.loop_quantities) {
    lj[q.name] = shaped(q, q.texts());
    ldig[q.name] = shaped(q, q.digits);
    lnorm[q.name] = q.normwise_digits;
  }
  lj["methods_agree_digits"] = {{"kkt_vs_lambda_first", L.agree_kkt_lambda}, {"kkt_vs_projection", L.agree_kkt_projection},
                                {"lambda_first_vs_projection", L.agree_lambda_projection},
                                {"lambda_kkt_vs_lambda_first", L.agree_lambda_values}};
  lj["condition_GtHG"] = L.condition_GtHG.empty() ? ojson(nullptr) : ojson(L.condition_GtHG);
  lj["condition_KKT"] = L.condition_KKT.empty() ? ojson(nullptr) : ojson(L.condition_KKT);
  ojson cls = ojson::array();
  for (const LoopSummary::Cluster& c : L.clusters) cls.push_back({{"loops", c.loops}, {"dofs", c.dofs}, {"rank", c.rank}});
  lj["clusters"] = cls;
  lj["active_loop_joints"] = L.active;
  if (L.id.present)
    lj["inverse_dynamics"] = {{"actuated", L.id.actuated},
                              {"actuation", L.id.kind},
                              {"unique", L.id.unique},
                              {"producible", L.id.producible},
                              {"residual", L.id.residual},
                              {"qdd_consistent", L.id.qdd_consistent},
                              {"qdd_residual", L.id.qdd_residual},
                              {"equation", "G_uᵀ u = Gᵀ τ_ID, τ_ID = H q̈ + C - τᵃ at the state's q̈ (RBDA eq. 8.63); u in loops.u"}};
  lj["degeneracy"] = L.message.empty() ? ojson(nullptr) : ojson(L.message);
  lj["certified_digits"] = ldig;
  lj["normwise_certified_digits"] = lnorm;
  return lj;
}

// The `contacts` section (docs/formats.md, "The contacts section"): the contacts, their cases, the
// LCP's solution or certificate, the QPs of eqs. 11.43-11.44, the impulsive step.
ojson contacts_json(const Evaluation& ev) {
  const ContactSummary& S = ev.contacts;
  ojson cj = {{"n_contacts", S.n_contacts}, {"names", S.names}, {"rigid", S.rigid}};
  cj["minimal_set"] = {{"contacts", S.minimal},
                       {"rule", "RBDA §11.6: a contact whose joint-space normal t_i is a non-negative combination of the "
                                "others' is dropped (its constraint and force are implied); tested by non-negative least squares"}};
  cj["model"] = "frictionless rigid point contacts, RBDA §11.3-11.5: H q̈ + C = τ + Tλ, ζ̇ = Mλ + d ≥ 0, λ ≥ 0, ζ̇ᵀλ = 0, "
                "over the rigid contacts in case 3 of §11.4 (`rigid`; separated and separating contacts carry no force)";
  cj["geometry"] = "a point of the successor B on a plane of the predecessor A (normal turning with A); frames base coordinates";
  cj["status"] = S.status;
  cj["cases"] = S.cases;
  cj["case_tolerances"] = {{"phi", S.phi_tolerance}, {"zeta", S.zeta_tolerance}};
  // Not posed (a colliding or penetrating rigid contact): M and d are data; no LCP was solved.
  const bool posed = S.status != "impact_first" && S.status != "penetrating";
  if (S.status != "H_not_positive_definite") {
    cj["rank"] = S.rank;
    cj["rank_threshold"] = S.rank_threshold;
    cj["lambda_uniqueness"] = S.lambda_unique ? "unique" : "not_unique";
    cj["unique"] = {{"lambda", S.lambda_unique}, {"tau_c", true}, {"zeta_dot", true}, {"qdd", true}};
    if (posed)
      cj["solver"] = {{"method", "Lemke, lexicographic rule"}, {"pivots", S.pivots}, {"pivot_tolerance", S.pivot_tolerance},
                      {"borderline", S.borderline}};
  }
  if (S.status == "solved") {
    cj["active"] = S.active;
    cj["residuals"] = {{"min_lambda", S.min_lambda}, {"min_zeta_dot", S.min_zeta_dot}, {"complementarity", S.complementarity},
                        {"zeta_dot_equation", S.equation_residual}};
    if (S.enumerated) cj["n_basic_solutions"] = S.n_basic_solutions;
  }
  if (!S.qp_status.empty()) {
    ojson qp = {{"equation", "RBDA eq. 11.44: min ½(q̈ - q̈_f)ᵀH(q̈ - q̈_f) subject to Tᵀq̈ + Ṫᵀq̇ ≥ 0"},
                {"method", "Goldfarb-Idnani dual active set, dense LDLᵀ of H"}, {"status", S.qp_status}, {"steps", S.qp_steps}};
    if (S.qp_status == "solved" && S.status == "solved")
      qp["agree_digits_with_lcp"] = {{"qdd", S.qp_agree_qdd}, {"tau_c", S.qp_agree_tau_c}, {"objective_11_43", S.qp_agree_objective}};
    cj["qp"] = qp;
  }
  if (!S.force_qp_status.empty()) {
    ojson fq = {{"equation", "RBDA eq. 11.43: min ½λᵀMλ + λᵀd subject to λ ≥ 0"},
                {"method", "primal active set on the bounds, eigen-decomposition of M_FF (minimum-norm λ_F)"},
                {"status", S.force_qp_status},
                {"steps", S.force_qp_steps}};
    if (S.force_qp_status == "solved" && S.status == "solved")
      fq["agree_digits_with_lcp"] = {
          {"zeta_dot", S.force_qp_agree_zeta_dot}, {"tau_c", S.force_qp_agree_tau_c}, {"objective", S.force_qp_agree_objective}};
    cj["force_qp"] = fq;
  }
  if (S.status == "no_solution") cj["certificate_check"] = {{"dTy", S.certificate_dTy}, {"max_abs_My", S.certificate_My}};
  cj["message"] = S.message.empty() ? ojson(nullptr) : ojson(S.message);
  cj["notes"] = S.notes;
  ojson cdig, cnorm;
  ojson basic = ojson::array(), basic_dig = ojson::array();
  ojson imp, idig, inorm, soft, sdig;
  for (const Quantity& q : ev.contact_quantities) {
    if (q.name.rfind("basic_solutions[", 0) == 0) {
      basic.push_back(shaped(q, q.texts()));
      basic_dig.push_back(shaped(q, q.digits));
      continue;
    }
    if (q.name.rfind("soft.", 0) == 0) {
      const std::string n = q.name.substr(5);
      soft[n] = shaped(q, q.texts());
      sdig[n] = shaped(q, q.digits);
      continue;
    }
    if (q.name.rfind("impact.", 0) == 0) {
      const std::string n = q.name.substr(7);
      imp[n] = shaped(q, q.texts());
      idig[n] = shaped(q, q.digits);
      inorm[n] = q.normwise_digits;
      continue;
    }
    cj[q.name] = shaped(q, q.texts());
    cdig[q.name] = shaped(q, q.digits);
    cnorm[q.name] = q.normwise_digits;
  }
  if (S.enumerated) {
    cj["basic_solutions"] = basic;
    cdig["basic_solutions"] = basic_dig;
  }
  cj["certified_digits"] = cdig;
  cj["normwise_certified_digits"] = cnorm;
  if (!S.soft.empty()) {
    ojson sj;
    sj["model"] = "RBDA §11.8: massless compliant surface, f_n = max(0, -K z - D ṗ) when touching (eq. 11.75), ż = -(K z + f_n)/D, "
                  "f_t = f_stick = -K_t x - D_t v if |f_stick| ≤ μ f_n else μ f_n f_stick/|f_stick| (eq. 11.79), ẋ = -(K_t x + f_t)/D_t";
    ojson names = ojson::array(), touching = ojson::array(), sticking = ojson::array();
    for (const ContactSummary::Soft& c : S.soft) {
      names.push_back(c.name);
      touching.push_back(c.touching);
      sticking.push_back(c.sticking);
    }
    sj["names"] = names;
    sj["touching"] = touching;
    sj["sticking"] = sticking;
    for (auto it = soft.begin(); it != soft.end(); ++it) sj[it.key()] = it.value();
    sj["certified_digits"] = sdig;
    cj["soft"] = sj;
  }
  if (S.impact.present) {
    const ContactSummary::Impact& I = S.impact;
    ojson ij;
    ij["model"] = I.frictional ? "sticking impact, RBDA eqs. 11.66-11.72: every contact collides, tangential motion stopped at "
                                 "frictional contacts, ζ_z⁺ = -e ζ_z⁻; λ = -(NᵀH⁻¹N)⁻¹(1 + E)Nᵀq̇⁻"
                               : "frictionless Newton impact, RBDA §11.7: w = Mλ + d ≥ 0, λ ≥ 0, λᵀw = 0, d = ζ⁻ + E min(ζ⁻, 0) "
                                 "(w = ζ⁺ + E min(ζ⁻, 0): restitution where colliding, ζ⁺ ≥ 0 where separating); u = Tλ = H Δq̇";
    ij["status"] = I.ok ? "solved" : "failed";
    ij["message"] = I.message.empty() ? ojson(nullptr) : ojson(I.message);
    ij["receiving_impulse"] = I.receiving;
    if (I.ok) ij["lambda_uniqueness"] = I.lambda_unique ? "unique" : "not_unique";
    if (I.frictional) ij["in_friction_cone"] = I.in_cone;
    if (!I.energy_change.empty()) ij["kinetic_energy_change"] = I.energy_change;
    if (!I.energy_change_closed_form.empty()) ij["kinetic_energy_change_closed_form"] = I.energy_change_closed_form;
    for (auto it = imp.begin(); it != imp.end(); ++it) ij[it.key()] = it.value();
    ij["certified_digits"] = idig;
    ij["normwise_certified_digits"] = inorm;
    cj["impact"] = ij;
  }
  return cj;
}

// One quantity of the proof: radius, digits and entry digits in the quantity's shape, or why not.
ojson proven_json(const ProvenQuantity& p) {
  ojson j;
  if (!p.not_proven.empty()) {
    j["not_proven"] = p.not_proven;
    return j;
  }
  Quantity shape;
  shape.rows = p.rows;
  shape.cols = p.cols;
  j["method"] = p.method;
  j["digits"] = p.digits;
  j["radius"] = shaped(shape, p.radius);
  j["entry_digits"] = shaped(shape, p.entry_digits);
  return j;
}

ojson proof_json(const Proof& proof) {
  ojson j;
  j["method"] = "interval arithmetic with outward rounding (MPFI) at " + std::to_string(proof.interval_digits) +
                " digits: 'evaluated' quantities by their algorithm on intervals, 'verified' ones by a residual "
                "correction (docs/certified-digits.md); |true - value| <= radius entry by entry, for the model and state "
                "as written";
  j["interval_digits"] = proof.interval_digits;
  j["attempts"] = proof.attempts;
  ojson qs = ojson::object();
  for (const ProvenQuantity& p : proof.quantities) qs[p.name] = proven_json(p);
  j["quantities"] = qs;
  if (!proof.loop_quantities.empty()) {
    ojson l = ojson::object();
    for (const ProvenQuantity& p : proof.loop_quantities) l[p.name] = proven_json(p);
    j["loops"] = l;
  }
  if (!proof.contact_quantities.empty()) {
    ojson c = ojson::object();
    for (const ProvenQuantity& p : proof.contact_quantities) c[p.name] = proven_json(p);
    j["contacts"] = c;
  }
  return j;
}

}  // namespace

EvalDocument eval_document(const LoadedModel& lm, const StateDesc& state, const std::string& state_file, bool floating_base,
                           const CertifiedEvaluation& r) {
  EvalDocument out;
  ojson& doc = out.doc;
  DeferredJson& deferred = out.deferred;
  const Evaluation& ev = r.ev;
  const Model<double> layout = model_layout(lm.desc);
  doc["format"] = "rbdref.eval";
  doc["version"] = 1;
  doc["generator"] = {{"rbdref_version", "0.1.0"}};
  doc["model"] = {{"file", lm.file}, {"sha256", lm.sha256}, {"kind", lm.kind}, {"name", lm.desc.name},
                  {"nb", layout.NB}, {"nq", layout.nq}, {"nv", layout.nv}, {"floating_base", floating_base},
                  {"inertia_policy", inertia_policy_name(lm.inertia)}, {"warnings", lm.warnings()}};
  doc["state"] = {{"file", state_file}, {"defaulted_to_zero", state.defaulted}};
  doc["precision"] = r.precision.name();
  doc["check_precision"] = r.check_precision.name();
  doc["digits_cap"] = ev.cap;
  doc["conventions"] = canonical_conventions(lm.desc);
  ojson joints = ojson::array();
  for (int i = 0; i < layout.NB; ++i) {
    const std::string& n = layout.joint_name[i];
    joints.push_back({{"name", n}, {"type", joint_type_name(layout.joint[i].type)}, {"body", layout.body_name[i]},
                      {"parent", layout.parent[i] < 0 ? ojson(nullptr) : ojson(layout.body_name[layout.parent[i]])},
                      {"q", {layout.iq[i], layout.nqi[i]}}, {"v", {layout.iv[i], layout.nvi[i]}}});
  }
  doc["dofs"] = dof_names(layout);
  doc["q_coordinates"] = q_names(layout);
  doc["joints"] = joints;
  doc["positive_definite"] = ev.positive_definite;
  doc["degeneracy"] = ev.degeneracy.empty() ? ojson(nullptr) : ojson(ev.degeneracy);
  // Matrices (H and L: n² entries) are written row by row straight from the raw values when the
  // document is written (io/json_stream.hpp), not held as text in it.
  auto matrix_values = [&deferred](const Quantity& q) {
    return deferred.defer([&q](std::ostream& out, const std::string& indent) {
      write_json_rows(out, indent, static_cast<size_t>(q.rows), static_cast<size_t>(q.cols),
                      [&q](std::ostream& o, size_t k) { o << '"' << q.text(k) << '"'; });
    });
  };
  auto matrix_digits = [&deferred](const Quantity& q) {
    return deferred.defer([&q](std::ostream& out, const std::string& indent) {
      write_json_rows(out, indent, static_cast<size_t>(q.rows), static_cast<size_t>(q.cols),
                      [&q](std::ostream& o, size_t k) { o << q.digits.at(k); });
    });
  };
  ojson digits, min_digits, normwise;
  for (const Quantity& q : ev.quantities) {
    const bool matrix = q.rows > 0 && q.cols > 0;
    doc[q.name] = matrix ? matrix_values(q) : shaped(q, q.texts());
    digits[q.name] = matrix ? matrix_digits(q) : shaped(q, q.digits);
    min_digits[q.name] = q.min_digits();
    normwise[q.name] = q.normwise_digits;
  }
  if (!ev.find("qdd")) doc["qdd"] = nullptr;
  if (ev.loops.present) doc["loops"] = loops_json(ev);
  if (ev.contacts.present) doc["contacts"] = contacts_json(ev);
  doc["certified_digits"] = digits;
  doc["min_certified_digits"] = min_digits;
  doc["normwise_certified_digits"] = normwise;
  if (r.proof.present) doc["proof"] = proof_json(r.proof);
  ojson jc = ojson::array();
  out.all_passed = true;
  for (const CheckResult& c : r.checks) {
    jc.push_back({{"name", c.name}, {"passed", c.passed}, {"residual", c.residual}, {"tolerance", c.tolerance},
                  {"digits", c.digits()}, {"detail", c.detail}});
    out.all_passed = out.all_passed && c.passed;
  }
  doc["checks"] = jc;
  return out;
}

std::string eval_summary(const LoadedModel& lm, int nv, const CertifiedEvaluation& r, bool all_passed) {
  std::ostringstream s;
  s << "rbdref eval: " << lm.desc.name << " (nv " << nv << ") at " << r.precision.name() << ", certified against "
    << r.check_precision.name() << "\n";
  const Evaluation& ev = r.ev;
  for (const Quantity& q : ev.quantities) {
    s << "  " << q.name << ": " << q.min_digits() << " digits (entry-wise), " << q.normwise_digits << " norm-wise";
    if (const ProvenQuantity* p = r.proof.present ? r.proof.find(q.name) : nullptr) {
      if (p->not_proven.empty())
        s << "; proven "
          << (p->entry_digits.empty() ? p->digits : *std::min_element(p->entry_digits.begin(), p->entry_digits.end()))
          << " entry-wise, " << p->digits
          << " norm-wise";
      else
        s << "; not proven";
    }
    s << "\n";
  }
  if (r.proof.present)
    s << "  proof: intervals at " << r.proof.interval_digits << " digits, " << r.proof.attempts << " attempt(s), "
      << r.proof.seconds << " s\n";
  if (ev.loops.present) {
    const LoopSummary& L = ev.loops;
    s << "  loops: " << L.n_constraints << " constraints, rank " << L.rank << ", mobility " << L.mobility << ", "
      << L.redundant << " redundant; state " << (L.consistent ? "consistent" : "INCONSISTENT") << " (|δ| "
      << L.position_error << ", |K q̇| " << L.velocity_error << ")\n";
    for (const Quantity& q : ev.loop_quantities)
      s << "  loops." << q.name << ": " << q.min_digits() << " digits (entry-wise), " << q.normwise_digits
        << " norm-wise\n";
    if (!L.message.empty()) s << "  loops degeneracy: " << L.message << "\n";
    if (!L.coordinates_differ.empty()) s << "  loops: " << L.coordinates_differ << "\n";
  }
  if (ev.contacts.present) {
    const ContactSummary& S = ev.contacts;
    s << "  contacts: " << S.n_contacts << ", " << S.status;
    if (S.status == "solved") s << " (λ " << (S.lambda_unique ? "unique" : "not unique") << ", active " << S.active.size() << ")";
    s << "\n";
    if (!S.message.empty() && S.status != "solved") s << "  contacts: " << S.message << "\n";
    for (const std::string& n : S.notes) s << "  contacts note: " << n << "\n";
    for (const Quantity& q : ev.contact_quantities)
      if (q.name.rfind("basic_solutions[", 0) != 0)
        s << "  contacts." << q.name << ": " << q.min_digits() << " digits (entry-wise), " << q.normwise_digits << " norm-wise\n";
  }
  if (!ev.degeneracy.empty()) s << "  degeneracy: " << ev.degeneracy << "\n";
  s << "  checks: " << (all_passed ? "all passed" : "FAILED") << "\n";
  return s.str();
}

void EvalDocument::write(std::ostream& out) const {
  deferred.write(doc, 2, out);
  out << "\n";
}

}  // namespace rbd
