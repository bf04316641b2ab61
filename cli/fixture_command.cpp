// rbdref fixture MODEL --samples N --seed S [--precision P] [--floating-base] [--contacts C] [--shard K/N] [--out F]
//
// --shard K/N: only samples ⌊(K-1)N_s/N⌋ .. ⌊K N_s/N⌋-1 (fixture.hpp, shard_range), in a document that
// says so; `rbdref merge` (merge_command.cpp) joins the N documents into this command's output
// without --shard, byte for byte (docs/campaigns.md).
// Draws N samples for the model (fixtures/fixture.hpp: home, near-singular, random), computes
// their certified reference values at P (default bin50) against P's check precision, and writes
// the golden fixture (format "rbdref.fixture", docs/formats.md) atomically to F, by default
// MODEL_STEM.fixture.json.gz in the current folder (gzip: ~23 KB per 36-DoF sample against ~55 KB
// of plain text, whose 52-digit values alone are ~45 KB; a name not ending in .gz is written
// plain). With contacts (a
// version-2 model's, or --contacts), each sample also carries the contact LCP's solution and the
// impulsive step (docs/contact.md).
#include "certify/memory.hpp"
#include "cli/commands.hpp"
#include "fixtures/fixture.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

struct FixtureOptions {
  std::string model, precision = "bin50", out, seed = "1";
  std::string samples = "8";  // parsed here: CLI11's "Could not convert" said nothing of the range
  std::string threads;        // empty: default_threads()
  std::string shard;          // --shard K/N: this process's part of a campaign (empty: the whole)
  bool prove = false;         // --prove: each sample's proven digits (certify/prove.hpp)
  ModelOptions mo;
  void add_to(CLI::App* sub) {
    add_model_argument(sub, model);
    sub->add_option("--samples", samples, "Number of samples (default 8)");
    sub->add_option("--seed", seed, "Seed of the sample generator: an integer 0..2^64-1 (default 1)");
    add_precision_option(sub, precision,
                         "Precision of the reference values: double | longdouble | float128 | bin50 | bin100 | mpfr:<digits> (default bin50)");
    sub->add_option("--threads", threads,
                    "Samples computed at once (default: the machine's hardware threads; MPFR precisions use one)");
    add_output_option(sub, "--out", out,
                      "Fixture file to write (atomically; a name ending in .gz is gzip-compressed; default: the model file's "
                      "name with .fixture.json.gz in the current folder)");
    sub->add_flag("--prove", prove,
                  "Also prove each sample's stored values on intervals: the sample's proof section (proven digits), which "
                  "compare caps scores at (docs/certified-digits.md)");
    sub->add_option("--shard", shard,
                    "K/N: compute only shard K of N of the samples (an independent process; `rbdref merge` joins the N files into "
                    "the fixture one run writes, byte for byte; docs/campaigns.md). Default name MODEL.fixture.shard-K-of-N.json.gz");
    mo.add_to(sub, /*with_contacts=*/true);
    mo.add_max_memory(sub);
  }
};

// write_fixture's large models: more DoFs than this are computed one sample at a time.
constexpr size_t kLargeDofs = 512;

// The fixture's name when --out is not given: the model file's name without its folder and its
// last extension, then ".fixture.json.gz", in the current folder (panda.urdf → panda.fixture.json.gz).
std::string default_fixture_name(const std::string& model) {
  std::string stem = std::filesystem::path(model).filename().string();
  const std::size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem.erase(dot);
  if (stem.empty() || stem == "." || stem == "..") stem = "model";
  return stem + ".fixture.json.gz";
}

// Whether a fixture file name asks for gzip (every reader of fixtures reads both).
bool gzip_name(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

int run_fixture(const FixtureOptions& o) {
  const std::optional<Precision> p = parse_precision_option(o.precision);
  const bool digits = !o.samples.empty() && o.samples.size() <= 6 && o.samples.find_first_not_of("0123456789") == std::string::npos;
  const int samples = digits ? std::stoi(o.samples) : 0;
  if (samples < 1 || samples > 100000)
    throw InputError("--samples", "", "expected an integer from 1 to 100000, got '" + o.samples + "'");
  const std::uint64_t seed = parse_seed(o.seed, "--seed");
  int threads = default_threads();
  if (!o.threads.empty()) {
    const bool ok = o.threads.size() <= 3 && o.threads.find_first_not_of("0123456789") == std::string::npos;
    threads = ok ? std::stoi(o.threads) : 0;
    if (threads < 1 || threads > 256) throw InputError("--threads", "", "expected an integer from 1 to 256, got '" + o.threads + "'");
  }
  const ShardSpec shard = o.shard.empty() ? ShardSpec{} : parse_shard(o.shard, "--shard");
  if (shard.count > samples)
    throw InputError("--shard", "", "expected N <= --samples (" + std::to_string(samples) + "): each of the N shards holds at least one sample");
  std::string out_path = o.out.empty() ? default_fixture_name(o.model) : o.out;
  if (o.out.empty() && !shard.whole())  // panda.fixture.json.gz → panda.fixture.shard-3-of-8.json.gz
    out_path.insert(out_path.size() - std::string(".json.gz").size(),
                    ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count));
  check_outputs({o.model, o.mo.loops, o.mo.contacts}, {{"--out", out_path}});
  const LoadedModel lm = load_model(o.model, o.mo.load_options());
  // The samples computed at once, as write_fixture runs them: one at a time at an MPFR precision
  // and on a model of more than kLargeDofs DoFs (whose two precisions then share the sample),
  // else one per worker thread, at most one per sample of this document.
  const auto [first, end] = shard_range(samples, shard);
  const bool large = model_layout(lm.desc).nv > static_cast<int>(kLargeDofs);
  const int at_once = !thread_safe_precision(*p) || large ? 1 : std::max(1, std::min(threads, end - first));
  check_model_memory(lm.file, lm.desc, *p, o.mo.max_memory, at_once, o.prove ? Proving::yes : Proving::no);
  print_model_warnings("fixture", lm);
  // Written as the samples are made (write_fixture), atomically; a name ending in .gz is written
  // gzip-compressed (every reader of fixtures reads both).
  int worst = 0;
  write_file_atomic(out_path, [&](std::ostream& out) { worst = write_fixture(lm, samples, seed, *p, threads, out, kLargeDofs, o.prove, shard); },
                    gzip_name(out_path));
  std::cerr << "rbdref fixture: " << lm.desc.name << ", "
            << (shard.whole() ? std::to_string(samples) + " samples"
                              : "shard " + std::to_string(shard.index) + " of " + std::to_string(shard.count) + ": samples " +
                                    std::to_string(first) + " to " + std::to_string(end - 1) + " of " + std::to_string(samples))
            << " at " << p->name()
            << " (certified against " << p->check().name() << (o.prove ? ", proven on intervals" : "")
            << "), smallest norm-wise certified digits " << worst << "\n  wrote " << out_path << "\n";
  return 0;
}

// rbdref upgrade FIXTURE --out F: an older fixture rewritten in the current format, every sample,
// value and digit count kept (no dynamics recomputed: the samples stay those of the file).
int run_upgrade(const std::string& in, const std::string& out) {
  check_outputs({in}, {{"--out", out}});
  const json doc = read_json_file(in);
  const Fixture f = read_fixture(doc, in);
  const std::string text = fixture_text(fixture_to_json(f));
  write_file_atomic(out, gzip_name(out) ? gzip_compress(text) : text);
  std::cerr << "rbdref upgrade: " << in << " (version " << doc.value("version", 0) << ", " << f.samples.size()
            << " samples) → " << out << " (version 4)\n";
  return 0;
}

}  // namespace

Run add_upgrade(CLI::App& app) {
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("upgrade", "Rewrite an older golden fixture in the current format (same samples, values and digits)");
  sub->add_option("fixture", *in, "Fixture file (any version this build reads; gzip or not)")->required();
  add_output_option(sub, "--out", *out, "Fixture file to write (atomically; a name ending in .gz is gzip-compressed)")->required();
  return [in, out] { return run_upgrade(*in, *out); };
}

Run add_fixture(CLI::App& app) {
  return add_command(app, "fixture", "Make a golden fixture: samples of a model with certified reference values", run_fixture);
}

}  // namespace rbd::cli
