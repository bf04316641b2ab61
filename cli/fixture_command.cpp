// rbdref fixture MODEL --samples N --seed S [--precision P] [--floating-base] [--contacts C] --out F
//
// Draws N samples for the model (fixtures/fixture.hpp: home, near-singular, random), computes
// their certified reference values at P (default bin50) against P's check precision, and writes
// the golden fixture (format "rbdref.fixture", docs/formats.md) atomically to F. With contacts (a
// version-2 model's, or --contacts), each sample also carries the contact LCP's solution and the
// impulsive step (docs/contact.md).
#include "cli/commands.hpp"
#include "fixtures/fixture.hpp"

#include <iostream>
#include <memory>

namespace rbd::cli {

namespace {

struct FixtureOptions {
  std::string model, precision = "bin50", out, seed = "1";
  std::string samples = "8";  // parsed here: CLI11's "Could not convert" said nothing of the range
  std::string threads;        // empty: default_threads()
  ModelOptions mo;
};

int run_fixture(const FixtureOptions& o) {
  const std::optional<Precision> p = Precision::parse(o.precision);
  if (!p)
    throw InputError("--precision", "", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits>, got '" +
                                            o.precision + "'");
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
  check_distinct_paths({o.model, o.mo.loops, o.mo.contacts}, {{"--out", o.out}});
  check_output_path(o.out);
  const LoadedModel lm = load_model(o.model, o.mo.load_options());
  print_model_warnings("fixture", lm);
  // Written as the samples are made (write_fixture), atomically; a name ending in .gz is written
  // gzip-compressed (every reader of fixtures reads both).
  const bool gz = o.out.size() > 3 && o.out.compare(o.out.size() - 3, 3, ".gz") == 0;
  int worst = 0;
  write_file_atomic(o.out, [&](std::ostream& out) { worst = write_fixture(lm, samples, seed, *p, threads, out); }, gz);
  std::cerr << "rbdref fixture: " << lm.desc.name << ", " << samples << " samples at " << p->name()
            << " (certified against " << p->check().name() << "), smallest norm-wise certified digits " << worst
            << "\n  wrote " << o.out << "\n";
  return 0;
}

// rbdref upgrade FIXTURE --out F: an older fixture rewritten in the current format, every sample,
// value and digit count kept (no dynamics recomputed: the samples stay those of the file).
int run_upgrade(const std::string& in, const std::string& out) {
  check_distinct_paths({in}, {{"--out", out}});
  check_output_path(out);
  const json doc = read_json_file(in);
  const Fixture f = read_fixture(doc, in);
  const std::string text = fixture_text(fixture_to_json(f));
  const bool gz = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
  write_file_atomic(out, gz ? gzip_compress(text) : text);
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
  sub->add_option("--out", *out, "Fixture file to write (atomically; a name ending in .gz is gzip-compressed)")->required()->check(nonempty_output);
  return [in, out] { return run_upgrade(*in, *out); };
}

Run add_fixture(CLI::App& app) {
  auto o = std::make_shared<FixtureOptions>();
  CLI::App* sub = app.add_subcommand("fixture", "Make a golden fixture: samples of a model with certified reference values");
  sub->add_option("model", o->model, "Model file: URDF or rbdref.model JSON")->required();
  sub->add_option("--samples", o->samples, "Number of samples (default 8)");
  sub->add_option("--seed", o->seed, "Seed of the sample generator: an integer 0..2^64-1 (default 1)");
  sub->add_option("--precision", o->precision, "Precision of the reference values (default bin50)");
  sub->add_option("--threads", o->threads,
                  "Samples computed at once (default: the machine's hardware threads; MPFR precisions use one)");
  sub->add_option("--out", o->out, "Fixture file to write (atomically)")->required()->check(nonempty_output);
  o->mo.add_to(sub, /*with_contacts=*/true);
  return [o] { return run_fixture(*o); };
}

}  // namespace rbd::cli
