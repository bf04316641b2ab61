// rbdref merge SHARD... --out FILE
//
// Joins the outputs of a campaign's shards (docs/campaigns.md), recognized by their format:
//   rbdref.fixture  the N documents of `fixture --shard K/N` → the fixture a single run of the same
//                   command without --shard writes, byte for byte (fixtures/fixture.hpp,
//                   merge_fixture_shards); gzip-compressed when FILE ends in .gz
//   rbdref.hunt     the N summaries of `hunt --shard K/N` (their standard output) → one summary:
//                   trials and skipped models summed (a sum past 2^64 - 1 is refused), findings in
//                   trial order, "shards": N
// Every shard is verified first (checksums, one campaign, each K once, none missing); on any
// problem nothing is written and the exit status is 2, naming the file and the field.
#include "cli/commands.hpp"
#include "fixtures/fixture.hpp"
#include "io/gzip.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>

namespace rbd::cli {

namespace {

using ojson = nlohmann::ordered_json;

// The summaries of `hunt --shard K/N` for K = 1..N: one engine, seed and budget.
ojson merge_hunt_summaries(const std::vector<std::pair<std::string, ojson>>& docs) {
  std::map<int, std::string> seen;  // index → file
  int count = 0;
  std::uint64_t trials = 0, skipped = 0;
  std::vector<ojson> findings;
  const ojson& first = docs.front().second;
  for (const auto& [file, d] : docs) {
    if (d.value("version", 0) != 1) throw InputError(file, "version", "expected 1");
    if (!d.contains("shard") || !d["shard"].is_object())
      throw InputError(file, "shard", "missing: the summary of a whole hunt, not of a shard (hunt --shard K/N)");
    const ojson& sh = d["shard"];
    if (!sh.contains("index") || !sh["index"].is_number_integer() || !sh.contains("count") || !sh["count"].is_number_integer() ||
        sh["index"].get<long long>() < 1 || sh["index"].get<long long>() > sh["count"].get<long long>() || sh["count"].get<long long>() > 10000)
      throw InputError(file, "shard", "expected {\"index\": K, \"count\": N} with 1 <= K <= N <= 10000, got " + sh.dump());
    const int k = sh["index"].get<int>(), n = sh["count"].get<int>();
    if (count && n != count) throw InputError(file, "shard.count", "expected " + std::to_string(count) + ", got " + std::to_string(n));
    count = n;
    if (seen.count(k)) throw InputError(file, "shard.index", std::to_string(k) + " is given twice (also " + seen[k] + ")");
    seen[k] = file;
    for (const char* key : {"engine", "engine_version", "seed", "budget_s"})
      if (!d.contains(key) || d[key] != first[key])
        throw InputError(file, key, "differs from " + docs.front().first + ": the shards are not of one campaign");
    // The sums are counted in 64 bits: a sum past 2^64 - 1 (no hunt runs that many trials; an
    // edited or corrupted summary) is refused rather than wrapped around.
    for (auto [key, sum] : {std::pair<const char*, std::uint64_t*>{"trials", &trials}, {"skipped", &skipped}}) {
      if (!d.contains(key) || !d[key].is_number_unsigned()) throw InputError(file, key, "expected a count");
      const std::uint64_t v = d[key].get<std::uint64_t>();
      if (v > UINT64_MAX - *sum)
        throw InputError(file, key, "the sum over the shards exceeds 2^64 - 1 (18446744073709551615): " + std::to_string(*sum) +
                                        " before this file, " + std::to_string(v) + " in it; no hunt runs that many, so a summary is wrong");
      *sum += v;
    }
    if (!d.contains("findings") || !d["findings"].is_array()) throw InputError(file, "findings", "expected an array");
    for (const ojson& f : d["findings"]) {
      if (!f.is_object() || !f.contains("seed") || !f["seed"].is_number_unsigned())
        throw InputError(file, "findings", "expected objects with the trial's seed");
      findings.push_back(f);
    }
  }
  std::string absent;
  for (int k = 1; k <= count; ++k)
    if (!seen.count(k)) absent += (absent.empty() ? "" : ", ") + std::to_string(k);
  if (!absent.empty())
    throw InputError(docs.front().first, "shard", "the campaign has " + std::to_string(count) + " shards; missing shard " + absent);
  std::stable_sort(findings.begin(), findings.end(),
                   [](const ojson& a, const ojson& b) { return a["seed"].get<std::uint64_t>() < b["seed"].get<std::uint64_t>(); });
  return ojson{{"format", "rbdref.hunt"}, {"version", 1}, {"engine", first["engine"]}, {"engine_version", first["engine_version"]},
               {"seed", first["seed"]}, {"budget_s", first["budget_s"]}, {"shards", count}, {"trials", trials},
               {"skipped", skipped}, {"findings", findings}};
}

int run_merge(const std::vector<std::string>& inputs, const std::string& out) {
  std::vector<std::string> paths = inputs;
  check_outputs(paths, {{"--out", out}});
  std::vector<std::pair<std::string, std::string>> bytes;
  std::string format;
  for (const std::string& p : inputs) {
    std::string b = read_text_file(p);
    const json head = parse_json_bytes(b, p);  // gzip inflated as it is parsed, never whole
    const std::string f = head.is_object() && head.contains("format") && head["format"].is_string() ? head["format"].get<std::string>() : "";
    if (f != "rbdref.fixture" && f != "rbdref.hunt")
      throw InputError(p, "format", "expected \"rbdref.fixture\" (fixture --shard) or \"rbdref.hunt\" (hunt --shard), got " +
                                        (f.empty() ? std::string("none") : "\"" + f + "\""));
    if (!format.empty() && f != format)
      throw InputError(p, "format", "expected \"" + format + "\" as in " + inputs.front() + ": shards of one kind of campaign");
    format = f;
    bytes.emplace_back(p, std::move(b));
  }
  if (format == "rbdref.fixture") {
    const std::string text = merge_fixture_shards(bytes);
    const bool gz = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
    write_file_atomic(out, gz ? gzip_compress(text) : text);
    std::cerr << "rbdref merge: " << inputs.size() << " shards → " << out << "\n";
    return 0;
  }
  std::vector<std::pair<std::string, ojson>> docs;
  for (const auto& [p, b] : bytes) docs.emplace_back(p, parse_json_bytes<ojson>(b, p));
  const ojson merged = merge_hunt_summaries(docs);
  write_file_atomic(out, merged.dump(1) + "\n");
  std::cerr << "rbdref merge: " << inputs.size() << " hunt shards, " << merged["trials"] << " trials, " << merged["findings"].size()
            << " findings → " << out << "\n";
  return merged["findings"].empty() ? 0 : 1;
}

}  // namespace

Run add_merge(CLI::App& app) {
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("merge", "Join the shards of a campaign (fixture --shard K/N, hunt --shard K/N) into one file");
  sub->add_option("shards", *inputs, "The N shards' files, in any order")->required();
  add_output_option(sub, "--out", *out, "The merged fixture (byte for byte what one run writes; .gz: gzip) or hunt summary ('-': stdout)")
      ->required();
  return [inputs, out] { return run_merge(*inputs, *out); };
}

}  // namespace rbd::cli
