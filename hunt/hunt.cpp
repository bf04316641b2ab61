// run_hunt: the hunt's stages in order (hunt.hpp).
#include "hunt/hunt.hpp"

#include <iostream>

namespace rbd::hunt {

int run_hunt(const HuntOptions& o) {
  const HuntPlan plan = plan_hunt(o);
  const HuntBudget budget(o.budget);
  HuntTally tally;
  int findings = 0;
  const auto stride = static_cast<std::uint64_t>(o.shard.count);
  for (std::uint64_t t = static_cast<std::uint64_t>(o.shard.index - 1); budget.left() > 0 && findings < o.max_findings; t += stride) {
    const std::uint64_t seed = o.seed + t;
    ModelDesc d = draw_trial(plan, seed);
    std::optional<Outcome> out = run_trial(*plan.adapter, d, o.samples, seed, "");
    if (!out) {
      ++tally.skipped;
      continue;
    }
    ++tally.trials;
    if (!out->failed) continue;
    ++findings;
    std::cerr << "hunt: seed " << seed << ": " << out->summary << " [" << out->signature << "]; shrinking\n";
    const Finding f = shrink(o, plan, budget, seed, std::move(d), std::move(*out));
    tally.findings.push_back(write_reproducer(o, f));
  }
  std::cout << hunt_summary(o, plan, tally).dump(1) << "\n";
  std::cerr << "hunt: " << o.engine << ": " << tally.trials << " trials (" << tally.skipped << " models it does not run), " << findings
            << " findings\n";
  return findings ? 1 : 0;
}

}  // namespace rbd::hunt
