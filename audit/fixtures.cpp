// The audit's fixture of one model (audit.hpp): the golden fixture while the model still hashes
// the same; for a user's --model, the cached fixture of its hash, samples and seed; else a new one
// (bin50, certified at bin100), written to the cache, to DATA/golden with --update-golden, or to
// --out/fixtures.
#include "audit/audit.hpp"

#include <iostream>

namespace rbd::audit {

AuditFixture audit_fixture(const AuditOptions& o, const AuditPlan& plan, size_t model) {
  const ManifestEntry& me = plan.models[model];
  const LoadedModel& lm = plan.loaded[model];
  const std::string golden = plan.golden_dir + "/" + me.name + ".fixture.json";
  AuditFixture out{{}, golden};
  Fixture& fx = out.fixture;
  bool reuse = false;
  const std::string model_hash = sha256_hex(model_canonical_text(lm.desc));
  std::string cached;
  if (me.user && !plan.cache.empty()) {
    cached = plan.cache + "/fixtures/" + model_hash + "-n" + std::to_string(me.samples) + "-s" + std::to_string(me.seed) + ".fixture.json";
    if (file_exists(cached)) {
      try {
        fx = read_fixture_file(cached);
        reuse = fx.model_sha256 == model_hash && static_cast<int>(fx.samples.size()) == me.samples;
      } catch (const InputError& e) {
        std::cerr << "audit: the cached fixture " << cached << " is unreadable (" << e.what() << "); making it again\n";
      }
      if (reuse) {
        out.file = cached;
        std::cerr << "audit: " << me.file << ": reusing the cached fixture " << cached << "\n";
      }
    }
  }
  if (plan.goldens[model]) {
    fx = *plan.goldens[model];
    reuse = fx.model_sha256 == model_hash;
    if (!reuse) std::cerr << "audit: " << golden << " was made from another version of " << me.file << "; regenerating\n";
  }
  if (reuse) return out;
  std::cerr << "audit: making the fixture of " << me.name << " (" << me.samples << " samples at bin50, certified at bin100)\n";
  fx = make_fixture(lm, me.samples, me.seed, *Precision::parse("bin50"));
  out.file = o.update_golden && !me.user ? golden : o.out + "/fixtures/" + me.name + ".fixture.json";
  const std::string text = fixture_text(fixture_to_json(fx));
  if (!cached.empty()) {
    try {
      make_dir(plan.cache + "/fixtures");
      write_file_atomic(cached, text);
      out.file = cached;
    } catch (const InputError& e) {
      std::cerr << "audit: cannot cache the fixture (" << e.what() << "); it is written to " << out.file << "\n";
    }
  }
  if (out.file != cached) write_file_atomic(staged(plan, out.file), text);
  return out;
}

}  // namespace rbd::audit
