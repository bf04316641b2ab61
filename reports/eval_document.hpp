// `rbdref eval` as library stages (cli/eval_command.cpp reads the options and calls them):
//
//   parse_actuated      --actuated: DoF names as in the document's `dofs` (a joint's name, or
//                       name[k] for DoF k of a multi-DoF joint), comma-separated, or "all"
//   certified_evaluation  certify/evaluate.hpp's evaluate_certified (two threads when P allows, the
//                       checks at P), its model errors named as the model file's input errors
//   eval_document       the document (format "rbdref.eval", docs/formats.md); H and L are written
//                       row by row from the raw values when the document is written
//   eval_summary        the lines printed when the document goes to a file
#pragma once

#include "certify/evaluate.hpp"
#include "certify/prove.hpp"
#include "checks/check_result.hpp"
#include "io/json_stream.hpp"
#include "io/model_io.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace rbd {

std::vector<int> parse_actuated(const std::string& spec, const Model<double>& layout);

struct CertifiedEvaluation {
  Evaluation ev;  // at `precision`, with its certified digits; raw values kept for the document
  Precision precision, check_precision;
  std::vector<CheckResult> checks;  // at `precision`, on the evaluation's own H, C, ABA, factor, κ
  Proof proof;                      // eval --prove: the proven digits of the reported values
};
// InputError naming model_file for a number the precision cannot represent.
CertifiedEvaluation certified_evaluation(const LoadedModel& lm, const StateDesc& state, const Precision& p,
                                       const std::vector<int>& actuated, bool impact, const std::string& model_file);

struct EvalDocument {
  nlohmann::ordered_json doc;
  DeferredJson deferred;  // H and L, written from the evaluation (which must outlive the document)
  bool all_passed = true;  // every check passed
  void write(std::ostream& out) const;
};
EvalDocument eval_document(const LoadedModel& lm, const StateDesc& state, const std::string& state_file, bool floating_base,
                           const CertifiedEvaluation& r);

std::string eval_summary(const LoadedModel& lm, int nv, const CertifiedEvaluation& r, bool all_passed);

}  // namespace rbd
