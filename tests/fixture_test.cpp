// Fixture and engine-output formats: round trips, what make_fixture draws, and every kind of bad
// input (exit status 2 through the real command, the file and field named, no file written).
#include "io/engine_output.hpp"
#include "engines/adapter.hpp"
#include "fixtures/fixture.hpp"
#include "io/json_stream.hpp"

#include <gtest/gtest.h>

#include <functional>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;
const std::string kData = std::string(RBDREF_SOURCE_DIR) + "/fixtures";

// One small fixture for the whole file (3 samples of the double pendulum), made once.
const Fixture& small_fixture() {
  static const Fixture f = make_fixture(load_model(kData + "/models/double_pendulum.urdf"), 3, 11, *Precision::parse("bin50"));
  return f;
}

TEST(Fixture, RoundTripKeepsEveryByte) {
  const std::string text = fixture_text(fixture_to_json(small_fixture()));
  const Fixture back = read_fixture(json::parse(text), "mem");
  EXPECT_EQ(fixture_text(fixture_to_json(back)), text);
}

TEST(Fixture, GoldenFixturesReadAndMatchTheirModels) {
  for (const auto& entry : fs::directory_iterator(kData + "/golden")) {
    const Fixture f = read_fixture_file(entry.path().string());  // throws on a hash mismatch
    EXPECT_GE(f.samples.size(), 3u) << entry.path();
    EXPECT_EQ(fixture_text(fixture_to_json(f)), read_text_file(entry.path().string())) << entry.path();
  }
}

// The tree layout (docs/formats.md; version 3 per document, version 4 per sample): on the floating
// humanoid, row i of H holds the DoF and
// its ancestors and row i of L its ancestors; the reader rebuilds full matrices whose entries are
// the computed ones (off the tree: exact zeros, ones on L's diagonal, all digits), each value
// within its stored rounding of the computed one; and the tree layout is what makes the file small.
TEST(Fixture, TreeLayoutStoresTheAncestorsAndReadsBackTheFullMatrices) {
  UrdfOptions uo;
  uo.floating_base = true;
  const LoadedModel lm = load_model(kData + "/models/humanoid.urdf", uo);
  const Fixture f = make_fixture(lm, 2, 5, *Precision::parse("bin50"));
  const nlohmann::ordered_json doc = fixture_to_json(f);
  EXPECT_EQ(doc["version"], 4);
  for (const auto& s : doc["samples"]) {
    EXPECT_EQ(s["layouts"]["H"], "tree");
    EXPECT_EQ(s["layouts"]["L"], "tree");
  }
  const Model<double> m = model_layout(f.model);
  for (int i = 0; i < m.nv; ++i) {
    size_t depth = 0;
    for (int j = m.dof_parent[i]; j >= 0; j = m.dof_parent[j]) ++depth;
    EXPECT_EQ(doc["samples"][0]["outputs"]["H"][i].size(), depth + 1) << i;
    EXPECT_EQ(doc["samples"][0]["outputs"]["L"][i].size(), depth) << i;
    EXPECT_EQ(doc["samples"][0]["certified_digits"]["H"][i].size(), depth + 1) << i;
  }
  const Fixture back = read_fixture(json::parse(doc.dump()), "mem");
  ScopedMpfrDigits guard(80);
  for (size_t k = 0; k < f.samples.size(); ++k)
    for (const char* name : {"H", "L", "C", "qdd"}) {
      const Quantity* a = f.samples[k].ref.find(name);
      const Quantity* b = back.samples[k].ref.find(name);
      ASSERT_TRUE(a && b) << name;
      ASSERT_EQ(a->values.size(), b->values.size()) << name;
      EXPECT_EQ(a->digits, b->digits) << name;
      for (size_t e = 0; e < a->values.size(); ++e) {
        const mpfr x = from_decimal<mpfr>(a->values[e]), y = from_decimal<mpfr>(b->values[e]);
        // stored with d + 2 digits (at least 17): off by at most half a unit in the last one
        const int d = std::max(a->digits[e] + 2, 17);
        EXPECT_LE(abs(mpfr(x - y)), abs(x) * pow(mpfr(10), mpfr(1 - d)) / 2) << name << "[" << e << "] " << a->values[e] << " " << b->values[e];
      }
    }
  // Far below version 2's full rows at all digits (the figure per sample is in docs/benchmarks.md).
  const size_t per_sample = dump_rows(doc["samples"][0], 1).size();
  EXPECT_LT(per_sample, 60000u);  // ~50-56 KB (zeros as "0", a row per line); full rows: ~150 KB
}

// A tree-layout row of the wrong length is bad input, named (the checksum recomputed, so that the
// reader gets past it to the row).
TEST(Fixture, TreeLayoutRowOfTheWrongLengthIsNamed) {
  nlohmann::ordered_json doc = fixture_to_json(small_fixture());
  ASSERT_EQ(doc["samples"][1]["layouts"]["H"], "tree");
  doc["samples"][1]["outputs"]["H"][1].push_back("1.0");
  json j = json::parse(doc.dump());
  j["checksum"] = fixture_checksum(j);
  try {
    read_fixture(j, "f.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "samples[1].outputs.H[1]");
    EXPECT_NE(std::string(e.what()).find("tree layout"), std::string::npos) << e.what();
  }
  json k = json::parse(fixture_to_json(small_fixture()).dump());
  k["samples"][2]["layouts"]["L"] = "sparse";
  k["checksum"] = fixture_checksum(k);
  try {
    read_fixture(k, "f.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "samples[2].layouts.L");
  }
}

// write_fixture, which writes each sample as soon as it is made and keeps only a few in memory, writes
// exactly what make_fixture + fixture_to_json write (the same bytes, so the same checksum), on one
// thread and on several (more than samples in flight: the window of held samples is 2 per thread),
// and for a large model.
TEST(Fixture, StreamedFixtureIsTheSameDocument) {
  UrdfOptions uo;
  uo.floating_base = true;
  const LoadedModel lm = load_model(kData + "/models/humanoid.urdf", uo);
  const Precision p = *Precision::parse("bin50");
  const std::string whole = fixture_text(fixture_to_json(make_fixture(lm, 5, 3, p)));
  for (int threads : {1, 3}) {
    std::ostringstream out;
    const int worst = write_fixture(lm, 5, 3, p, threads, out);
    EXPECT_EQ(out.str(), whole) << threads << " threads";
    EXPECT_GT(worst, 30);
  }
  // A large model's way (one sample at a time, its two precisions on two threads), taken here by
  // calling the 36-DoF humanoid large.
  std::ostringstream large;
  write_fixture(lm, 5, 3, p, 2, large, 30);
  EXPECT_EQ(large.str(), whole);
  // At an MPFR precision the streamed text is made after the evaluation, outside its precision
  // scope: it still carries all of the precision's digits (to_decimal of the value as made).
  const Precision p60 = *Precision::parse("mpfr:60");
  const LoadedModel pend = load_model(kData + "/models/double_pendulum.urdf");
  std::ostringstream mp;
  write_fixture(pend, 2, 4, p60, 1, mp);
  EXPECT_EQ(mp.str(), fixture_text(fixture_to_json(make_fixture(pend, 2, 4, p60))));
  const Fixture back60 = read_fixture(json::parse(mp.str()), "mem");
  const Quantity* H60 = back60.samples[1].ref.find("H");
  ASSERT_TRUE(H60);
  EXPECT_GE(H60->values[0].find('e'), 58u) << H60->values[0];  // d.ddd…: ~60 significant digits
  const Fixture back = read_fixture(json::parse(whole), "mem");  // checksum verified
  EXPECT_EQ(back.samples.size(), 5u);
}

// Fixtures of version 2 (full rows, every digit, written before issue 12) are still read, and say
// what a fixture made now says: the same entries, within the stored rounding, digits within one
// (version 2 certified from the decimal text; now from the values themselves).
TEST(Fixture, Version2FixturesAreStillRead) {
  const std::string file = std::string(RBDREF_SOURCE_DIR) + "/tests/data/fixtures_v2/double_pendulum_v2.json";
  const Fixture old = read_fixture_file(file);
  ASSERT_EQ(old.samples.size(), 8u);
  const Fixture now = make_fixture(load_model(kData + "/models/double_pendulum.urdf"), 8, old.seed, *Precision::parse("bin50"));
  ScopedMpfrDigits guard(80);
  for (size_t k = 0; k < old.samples.size(); ++k) {
    EXPECT_EQ(old.samples[k].q, now.samples[k].q);
    for (const Quantity& a : old.samples[k].ref.quantities) {
      const Quantity* b = now.samples[k].ref.find(a.name);
      ASSERT_TRUE(b) << a.name;
      ASSERT_EQ(a.values.size(), b->values.size());
      for (size_t e = 0; e < a.values.size(); ++e) {
        // Certified digits may only rise: sample 1 sits at q = π + 1e-7, where C and the momentum
        // are ~1e-7, and the version-2 values came from Boost's cpp_bin_float sine, which reduces
        // with π at 50 digits and left 43 certified digits there; sin_cos (reference/numeric/scalar.hpp)
        // reduces in 120 digits and keeps 49-50.
        EXPECT_GE(b->digits[e], a.digits[e] - 1) << a.name << e;
        if (k == 1 && a.name == "C") {
          EXPECT_GE(b->digits[e], 49) << a.name << e;
        }
        const mpfr x = from_decimal<mpfr>(a.values[e]), y = from_decimal<mpfr>(b->values[e]);
        EXPECT_LE(abs(mpfr(x - y)), abs(x) * pow(mpfr(10), mpfr(-40)) + pow(mpfr(10), mpfr(-45))) << a.name << e;
      }
    }
  }
}

// gzip: the same document, read transparently by the readers; a damaged or truncated stream is
// bad input (InputError naming the file), never a crash or a half-read document.
TEST(Fixture, GzipFixturesAreReadTransparently) {
  const std::string text = fixture_text(fixture_to_json(small_fixture()));
  const std::string gz = gzip_compress(text);
  ASSERT_TRUE(is_gzip(gz));
  EXPECT_LT(gz.size(), text.size() / 2);
  const fs::path dir = fs::temp_directory_path() / ("rbdref_gz_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "f.json.gz").string();
  write_file_atomic(file, gz);
  EXPECT_EQ(fixture_text(fixture_to_json(read_fixture_file(file))), text);
  write_file_atomic(file, gz.substr(0, gz.size() / 2));  // truncated
  try {
    read_fixture_file(file);
    FAIL() << "accepted a truncated gzip file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
  }
  std::string damaged = gz;
  damaged[damaged.size() / 2] ^= 0x5a;
  write_file_atomic(file, damaged);
  EXPECT_THROW(read_fixture_file(file), InputError);
  write_file_atomic(file, gz + "trailing");
  EXPECT_THROW(read_fixture_file(file), InputError);
  fs::remove_all(dir);
}

// The block-parallel gzip writer (io/io_util.cpp, GzipStreambuf): one gzip member that our gunzip
// and the system's gzip(1) read back as the text, whatever the block size, the level switch and the
// thread count; the same bytes for any thread count (so a fixture file does not depend on the
// machine); and each block primed with the 32 KiB before it, so that small blocks cost next to
// nothing in size.
TEST(Gzip, BlocksOnThreadsAreOneStreamThatEveryReaderReads) {
  // Fixture-like text: repeated keys and structure, and digits.
  std::string text;
  std::uint64_t x = 88172645463325252ull;
  while (text.size() < 300000) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    text += "{\"H\": \"" + std::to_string(x) + "e-3\", \"digits\": " + std::to_string(x % 60) + "},\n";
  }
  const fs::path dir = fs::temp_directory_path() / ("rbdref_gzip_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto system_gunzip = [&](const std::string& gz) {
    const std::string file = (dir / "t.gz").string();
    write_file_atomic(file, gz);
    std::string out;
    FILE* p = ::popen(("gzip -dc '" + file + "'").c_str(), "r");
    if (!p) return std::string("popen failed");
    char buf[1 << 15];
    for (size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, got);
    return ::pclose(p) == 0 ? out : std::string("gzip -dc failed");
  };
  for (const size_t n : {size_t(0), size_t(1), size_t(1023), size_t(1024), size_t(1025), size_t(70000), text.size()}) {
    const std::string data = text.substr(0, n);
    for (const GzipLayout layout : {GzipLayout{1024, 0, 1}, GzipLayout{1024, 5000, 1}, GzipLayout{4096, size_t(1) << 40, 1},
                                    GzipLayout{}}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", block " + std::to_string(layout.block) + ", fast after " +
                   std::to_string(layout.fast_after));
      const std::string gz = gzip_compress(data, layout);
      ASSERT_TRUE(is_gzip(gz));
      EXPECT_EQ(gunzip(gz, "t.gz"), data);
      EXPECT_EQ(system_gunzip(gz), data);
      GzipLayout threaded = layout;
      threaded.threads = 3;
      EXPECT_EQ(gzip_compress(data, threaded), gz) << "the bytes depend on the thread count";
    }
  }
  // Primed blocks: 16 KiB blocks within 2 % of one stream at the same level (zlib on this text:
  // +0.3 % primed, +8.4 % unprimed; 1 MiB blocks, the writers' default, +0.01 % primed).
  const size_t one = gzip_compress(text, GzipLayout{size_t(1) << 20, size_t(1) << 40, 1}).size();
  const size_t blocks = gzip_compress(text, GzipLayout{16384, size_t(1) << 40, 2}).size();
  EXPECT_LT(static_cast<double>(blocks), 1.02 * static_cast<double>(one)) << one << " vs " << blocks;
  // Level 1 beyond fast_after: larger than level 6 throughout, and still the text.
  EXPECT_GT(gzip_compress(text, GzipLayout{4096, 0, 2}).size(), gzip_compress(text, GzipLayout{4096, size_t(1) << 40, 2}).size());
  fs::remove_all(dir);
}

// Streamed writes (io/io_util.hpp, io/json_stream.hpp): a gzip stream that the readers read back as
// the same text; a writer that throws leaves no file and the old one untouched; deferred values land
// where their placeholders were, in valid JSON, and text that only looks like a placeholder is kept.
TEST(StreamedWrites, GzipStreamAtomicityAndDeferredValues) {
  const fs::path dir = fs::temp_directory_path() / ("rbdref_stream_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "d.json.gz").string();
  // More than the stream buffer's 64 KiB, so that the compressor is fed several times.
  std::string text = "[";
  for (int k = 0; k < 40000; ++k) text += (k ? ",\"" : "\"") + std::to_string(k * 7919 % 100003) + "\"";
  text += "]";
  write_file_atomic(file, [&](std::ostream& out) { out << text; }, true);
  EXPECT_TRUE(is_gzip(read_text_file(file)));
  EXPECT_EQ(read_json_file(file), json::parse(text));
  EXPECT_THROW(write_file_atomic(file, [](std::ostream& out) { out << "partial"; throw std::runtime_error("stop"); }, true),
               std::runtime_error);
  EXPECT_EQ(read_json_file(file), json::parse(text));  // the old file, whole
  // A failure inside the stream (a zlib or memory error in a block becomes badbit): no file either.
  EXPECT_THROW(write_file_atomic(file, [](std::ostream& out) { out << "partial"; out.setstate(std::ios::badbit); }, true),
               InputError);
  EXPECT_EQ(read_json_file(file), json::parse(text));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);  // no temporary left behind

  DeferredJson dj;
  nlohmann::ordered_json doc;
  doc["name"] = "\x01rbdref-deferred-7\x02";  // looks like a placeholder, is not one of dj's
  doc["M"] = dj.defer([](std::ostream& out, const std::string& indent) {
    write_json_rows(out, indent, 2, 3, [](std::ostream& o, size_t k) { o << '"' << k << '"'; });
  });
  doc["nested"] = {{"empty", dj.defer([](std::ostream& out, const std::string& indent) { write_json_rows(out, indent, 0, 0, {}); })},
                   {"x", 1}};
  std::ostringstream out;
  dj.write(doc, 2, out);
  const json back = json::parse(out.str());
  EXPECT_EQ(back["name"], "\x01rbdref-deferred-7\x02");
  EXPECT_EQ(back["M"], json::parse(R"([["0","1","2"],["3","4","5"]])"));
  EXPECT_EQ(back["nested"]["empty"], json::array());
  EXPECT_EQ(back["nested"]["x"], 1);
  fs::remove_all(dir);
}

// dump_rows (the layout fixtures are written in): dump(indent) except that an array of scalars stands
// on one line; the same document when parsed back, whatever it holds (empty containers, nesting,
// strings that need escaping, numbers, null, booleans).
TEST(StreamedWrites, DumpRowsPutsEachScalarArrayOnOneLine) {
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(
      R"({"v": ["1.5e+00", "0", -2.25, null, true], "M": [["a\"b", "c"], [], [1]], "e": {}, "o": {"k": [[]]}})");
  EXPECT_EQ(dump_rows(doc, 1),
            "{\n \"v\": [\"1.5e+00\", \"0\", -2.25, null, true],\n \"M\": [\n  [\"a\\\"b\", \"c\"],\n  [],\n  [1]\n ],\n"
            " \"e\": {},\n \"o\": {\n  \"k\": [\n   []\n  ]\n }\n}");
  EXPECT_EQ(nlohmann::ordered_json::parse(dump_rows(doc, 2)), doc);
  EXPECT_EQ(dump_rows(nlohmann::ordered_json::parse("[]"), 1), "[]");
  EXPECT_EQ(dump_rows(nlohmann::ordered_json("x"), 1), "\"x\"");
  // Every fixture the suite makes parses back to the same document.
  const nlohmann::ordered_json f = fixture_to_json(small_fixture());
  EXPECT_EQ(nlohmann::ordered_json::parse(fixture_text(f)), f);
}

// The samples exercise the model: a home, a near-singular and random states; inputs are the exact
// doubles stated; outputs certified to at least 40 digits at bin50.
TEST(Fixture, SamplesAreDrawnAsDocumentedAndCertified) {
  const LoadedModel lm = load_model(kData + "/models/humanoid.json");
  const Fixture f = make_fixture(lm, 4, 3, *Precision::parse("bin50"));
  ASSERT_EQ(f.samples.size(), 4u);
  EXPECT_EQ(f.samples[0].kind, "home");
  EXPECT_EQ(f.samples[1].kind, "near_singular");
  EXPECT_EQ(f.samples[2].kind, "random");
  // Free base (q[0..3] its quaternion): identity at home, turned by nearly π when near-singular,
  // a non-identity orientation and a non-zero base velocity in the random samples.
  EXPECT_EQ(f.samples[0].q[0], 1.0);
  EXPECT_LT(std::fabs(f.samples[1].q[0]), 1e-7);
  for (int k = 2; k < 4; ++k) {
    EXPECT_LT(std::fabs(f.samples[k].q[0]), 0.999);
    double vb = 0;
    for (int j = 0; j < 6; ++j) vb += std::fabs(f.samples[k].qd[j]);
    EXPECT_GT(vb, 0.1);
  }
  for (const Sample& s : f.samples) {
    EXPECT_TRUE(s.ref.positive_definite) << s.id;
    for (const Quantity& q : s.ref.quantities) {
      if (q.name == "H" || q.name == "C" || q.name == "tau" || q.name == "qdd") {
        EXPECT_GE(q.normwise_digits, 40) << s.id << " " << q.name;
      }
    }
  }
  // Deterministic: the same generator gives the same file.
  EXPECT_EQ(fixture_to_json(make_fixture(lm, 4, 3, *Precision::parse("bin50"))).dump(), fixture_to_json(f).dump());
}

// Each stored value is the bin50 value rounded once to its certified digits d plus two: within half
// a unit of that last digit of the exact binary value (rounding the 54-digit text a second time,
// as earlier writers did, misses that bound in about one value of 200); a value
// certified to fewer than 15 digits is stored with all its digits (text_digits()).
TEST(Fixture, StoredValuesAreTheBinaryValuesRoundedOnce) {
  const LoadedModel lm = load_model(kData + "/models/humanoid.json");
  const Precision p = *Precision::parse("bin50");
  const Fixture f = make_fixture(lm, 4, 3, p);
  const ScopedMpfrDigits wide(300);
  int checked = 0, whole = 0;
  for (const Sample& s : f.samples) {
    const StateDesc state{exact_nums(s.q), exact_nums(s.qd), exact_nums(s.qdd), exact_nums(s.tau), {}, {}, {}};
    const Evaluation raw = evaluate(p, lm.desc, state, {}, false, EvaluationText::Deferred);
    for (const Quantity& q : s.ref.quantities) {
      const Quantity* r = raw.find(q.name);
      ASSERT_TRUE(r && r->raw && r->raw->size() == q.values.size()) << q.name;
      ASSERT_EQ(q.digits.size(), q.values.size()) << q.name;
      for (size_t k = 0; k < q.values.size(); ++k) {
        const mpfr x = from_decimal<mpfr>(r->raw->text(k, 220));  // the exact expansion (≤ 220 digits here)
        const mpfr y = from_decimal<mpfr>(q.values[k]);
        if (x == 0) {
          EXPECT_EQ(y, 0) << s.id << " " << q.name << "[" << k << "]";
          continue;
        }
        const int d = q.digits[k];
        if (d < 15) {
          EXPECT_EQ(y, from_decimal<mpfr>(r->raw->text(k))) << s.id << " " << q.name << "[" << k << "]";
          ++whole;
          continue;
        }
        const mpfr unit = pow(mpfr(10), floor(log10(abs(x))) - (d + 2) + 1);
        EXPECT_LE(abs(mpfr(y - x)), unit / 2) << s.id << " " << q.name << "[" << k << "] " << q.values[k] << " of "
                                               << r->raw->text(k, 60);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 2000);
  EXPECT_GT(whole, 0);
}

// Every bundled URDF has a canonical JSON twin (written by `rbdref convert`) that is the same model.
TEST(BundledModels, UrdfAndCanonicalJsonAreTheSameModel) {
  for (const char* m : {"double_pendulum", "panda", "arm7", "far_arm", "tiny_inertia", "humanoid"}) {
    UrdfOptions uo;
    uo.floating_base = std::string(m) == "humanoid";  // the humanoid floats
    const LoadedModel u = load_model(kData + "/models/" + m + ".urdf", uo);
    const LoadedModel j = load_model(kData + "/models/" + m + ".json");
    const Model<bin50> mu = build_model<bin50>(u.desc), mj = build_model<bin50>(j.desc);
    ASSERT_EQ(mu.nv, mj.nv) << m;
    EXPECT_EQ(mu.joint_name, mj.joint_name) << m;
    for (int i = 0; i < mu.NB; ++i) {
      EXPECT_EQ(mu.parent[i], mj.parent[i]) << m;
      EXPECT_TRUE(mu.I[i].M == mj.I[i].M) << m << " body " << mu.body_name[i];
      EXPECT_TRUE(mu.Xtree[i].E == mj.Xtree[i].E && mu.Xtree[i].r == mj.Xtree[i].r) << m << " body " << mu.body_name[i];
    }
  }
}

TEST(EngineOutput, RoundTripKeepsEveryByte) {
  EngineOutput e;
  e.engine = "x";
  e.engine_version = "1";
  e.scalar = "double";
  e.model_name = "m";
  e.model_sha256 = "abc";
  e.dofs = {"a", "b"};
  EngineSample s;
  s.id = "s000";
  s.q = {Num::exact(0.1), Num::exact(0.2)};
  s.qd = s.qdd = s.tau = s.q;
  s.values["H"] = NumMatrix{2, 2, {Num::exact(1), Num::exact(0.5), Num::exact(0.5), Num::decimal("2.00000000000000000001")}};
  s.values["C"] = NumMatrix{2, 0, {Num::exact(-3), Num::exact(1e-300)}};
  s.raw = {{"H", {{1, 0.5}, {0.5, 2}}}};
  e.samples.push_back(s);
  const std::string text = engine_output_to_json(e).dump(1);
  EXPECT_EQ(engine_output_to_json(read_engine_output(json::parse(text), "mem")).dump(1), text);
}

// ---- bad input through the command ---------------------------------------------------------

class FixtureCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rbdref_fx_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  std::string write(const std::string& n, const std::string& text) {
    std::ofstream(path(n)) << text;
    return path(n);
  }
  int run(const std::string& args, std::string* err = nullptr) {
    const std::string cmd = std::string(RBDREF_CLI) + " " + args + " >" + path("out.txt") + " 2>" + path("err.txt");
    const int st = std::system(cmd.c_str());
    if (err) *err = read_text_file(path("err.txt"));
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  // A compare of a (possibly broken) fixture against a good engine output: exit 2, message names
  // the file and field, no report written.
  void expect_bad_fixture(const json& fx, const std::string& field) {
    const std::string f = write("bad.fixture.json", fx.dump());
    std::string err;
    EXPECT_EQ(run("compare " + f + " " + engine_file() + " --report " + path("r.json"), &err), 2) << err;
    EXPECT_NE(err.find(f), std::string::npos) << err;
    EXPECT_NE(err.find(field), std::string::npos) << "field '" << field << "' not named: " << err;
    EXPECT_FALSE(fs::exists(path("r.json")));
  }
  json good_fixture() { return json::parse(fixture_to_json(small_fixture()).dump()); }
  // An engine output holding the fixture's own values rounded to double.
  std::string engine_file() {
    const Fixture& f = small_fixture();
    EngineOutput e;
    e.engine = "rounded-reference";
    e.engine_version = "0";
    e.scalar = "double";
    e.model_name = f.model.name;
    e.model_sha256 = f.model_sha256;
    e.dofs = f.dofs;
    for (const Sample& s : f.samples) {
      EngineSample es;
      es.id = s.id;
      for (double x : s.q) es.q.push_back(Num::exact(x));
      for (double x : s.qd) es.qd.push_back(Num::exact(x));
      for (double x : s.qdd) es.qdd.push_back(Num::exact(x));
      for (double x : s.tau) es.tau.push_back(Num::exact(x));
      for (const char* n : {"H", "C", "tau", "qdd"}) {
        const Quantity* q = s.ref.find(n);
        NumMatrix m{q->rows, q->cols, {}};
        for (const std::string& v : q->values) m.v.push_back(Num::exact(std::stod(v)));
        es.values[n] = m;
      }
      e.samples.push_back(es);
    }
    return write("engine.json", engine_output_to_json(e).dump());
  }

 private:
  fs::path dir_;
};

TEST_F(FixtureCli, GoodFixtureAndEngineOutputCompareClean) {
  const std::string f = write("good.fixture.json", good_fixture().dump());
  std::string err;
  EXPECT_EQ(run("compare " + f + " " + engine_file() + " --report " + path("r.json"), &err), 0) << err;
  EXPECT_TRUE(fs::exists(path("r.json")));
}

// Any edit of a version-2 fixture is caught by its checksum, whatever field it touches.
TEST_F(FixtureCli, AnyEditIsCaughtByTheChecksum) {
  const auto edits = std::vector<std::function<void(json&)>>{
      [](json& f) { f["model"]["canonical"]["bodies"][0]["inertial"]["mass"] = "1.5"; },
      [](json& f) { f["samples"][0]["inputs"]["q"][0] = 0.25; },
      [](json& f) { f["samples"][0]["outputs"]["H"][0][0] = "1.0"; },
      [](json& f) { f["samples"][1]["certified_digits"]["C"][0] = 3; },
      [](json& f) { f["samples"][1]["condition_number"] = "1e300"; },
      [](json& f) { f["samples"][2]["normwise_certified_digits"]["qdd"] = 1; },
  };
  for (const auto& edit : edits) {
    json fx = good_fixture();
    edit(fx);
    expect_bad_fixture(fx, "checksum");
  }
}

// A fixture whose checksum was recomputed after the edit (made by hand, or by another tool) is
// still validated field by field: the model by its own hash, the tolerance-setting fields by
// their ranges.
json resealed(json fx) {
  fx["checksum"] = fixture_checksum(fx);
  return fx;
}

TEST_F(FixtureCli, EditedModelIsRejectedByItsHash) {
  json fx = good_fixture();
  fx["model"]["canonical"]["bodies"][0]["inertial"]["mass"] = "1.5";
  expect_bad_fixture(resealed(fx), "model.sha256");
}

TEST_F(FixtureCli, UnknownVersionIsRejected) {
  json fx = good_fixture();
  fx["version"] = 5;
  expect_bad_fixture(fx, "version");
}

TEST_F(FixtureCli, ToleranceFieldsAreValidated) {
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& f) { f["samples"][1]["condition_number"] = "abc"; }, "samples[1].condition_number"},
      {[](json& f) { f["samples"][1]["condition_number"] = "0.5"; }, "samples[1].condition_number"},
      {[](json& f) { f["samples"][0]["normwise_certified_digits"]["H"] = -5; }, "samples[0].normwise_certified_digits.H"},
      {[](json& f) { f["samples"][0]["normwise_certified_digits"]["H"] = 51; }, "samples[0].normwise_certified_digits.H"},
      {[](json& f) { f["samples"][0]["certified_digits"]["C"][0] = 99; }, "samples[0].certified_digits.C"},
      {[](json& f) { f["generator"]["digits"] = 300; }, "generator.digits"},
      {[](json& f) { f["generator"]["check_precision"] = "bin50"; }, "generator.check_precision"},
  };
  for (const auto& [edit, field] : cases) {
    json fx = good_fixture();
    edit(fx);
    expect_bad_fixture(resealed(fx), field);
  }
}

TEST_F(FixtureCli, MissingFieldsAreNamed) {
  json fx = good_fixture();
  fx["samples"][1].erase("inputs");
  expect_bad_fixture(resealed(fx), "samples[1].inputs");
  fx = good_fixture();
  fx["samples"][0]["outputs"].erase("C");
  expect_bad_fixture(resealed(fx), "samples[0].outputs.C");
}

TEST_F(FixtureCli, WrongDimensionsAreNamed) {
  json fx = good_fixture();
  fx["samples"][2]["inputs"]["qd"].push_back(0.5);
  expect_bad_fixture(resealed(fx), "samples[2].inputs.qd");
  fx = good_fixture();
  fx["samples"][0]["outputs"]["H"][1].erase(0);
  expect_bad_fixture(resealed(fx), "samples[0].outputs.H[1]");
}

TEST_F(FixtureCli, NonFiniteAndNonDecimalValuesAreRejected) {
  json fx = good_fixture();
  fx["samples"][0]["outputs"]["tau"][0] = "nan";
  expect_bad_fixture(resealed(fx), "samples[0].outputs.tau[0]");
  fx = good_fixture();
  fx["samples"][0]["inputs"]["q"][0] = "inf";
  expect_bad_fixture(resealed(fx), "samples[0].inputs.q[0]");
}

TEST_F(FixtureCli, TruncatedFileIsRejected) {
  const std::string text = good_fixture().dump();
  const std::string f = write("cut.fixture.json", text.substr(0, text.size() / 2));
  std::string err;
  EXPECT_EQ(run("compare " + f + " " + engine_file() + " --report " + path("r.json"), &err), 2);
  EXPECT_NE(err.find(f), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("r.json")));
}

TEST_F(FixtureCli, FixtureCommandRejectsABadModelAndWritesNothing) {
  const std::string m = write("bad.urdf", "<robot name=\"r\"><link name=\"a\"/><joint name=\"j\" type=\"revolute\">");
  std::string err;
  EXPECT_EQ(run("fixture " + m + " --samples 2 --out " + path("f.json"), &err), 2);
  EXPECT_NE(err.find(m), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("f.json")));
  EXPECT_EQ(run("fixture " + kData + "/models/double_pendulum.urdf --samples 0 --out " + path("f.json"), &err), 2);
  EXPECT_NE(err.find("--samples"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("f.json")));
}

TEST_F(FixtureCli, FixtureCommandWritesAReadableFixture) {
  std::string err;
  ASSERT_EQ(run("fixture " + kData + "/models/panda.urdf --samples 3 --seed 5 --out " + path("p.json"), &err), 0) << err;
  const Fixture f = read_fixture_file(path("p.json"));
  EXPECT_EQ(f.samples.size(), 3u);
  EXPECT_EQ(f.dofs.size(), 7u);
  // The command streams the document (write_fixture); it is the document make_fixture and
  // fixture_to_json make, and its gzip form reads back as the same.
  const std::string text = read_text_file(path("p.json"));
  EXPECT_EQ(text, fixture_text(fixture_to_json(make_fixture(load_model(kData + "/models/panda.urdf"), 3, 5, *Precision::parse("bin50")))));
  ASSERT_EQ(run("fixture " + kData + "/models/panda.urdf --samples 3 --seed 5 --threads 1 --out " + path("p.json.gz"), &err), 0) << err;
  EXPECT_TRUE(is_gzip(read_text_file(path("p.json.gz"))));
  EXPECT_EQ(fixture_text(fixture_to_json(read_fixture_file(path("p.json.gz")))), text);
}

// Without --out the fixture is written gzip-compressed beside the caller, named after the model
// file (issue 12: ~23 KB per 36-DoF sample by default); it is the document --out F.json holds.
TEST_F(FixtureCli, FixtureCommandWritesGzipNamedAfterTheModelByDefault) {
  const std::string cmd = "cd " + path("") + " && " + std::string(RBDREF_CLI) + " fixture " + kData +
                          "/models/panda.urdf --samples 2 --seed 5 --threads 1 >out.txt 2>err.txt";
  const int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << read_text_file(path("err.txt"));
  ASSERT_TRUE(fs::exists(path("panda.fixture.json.gz")));
  EXPECT_NE(read_text_file(path("err.txt")).find("wrote panda.fixture.json.gz"), std::string::npos) << read_text_file(path("err.txt"));
  EXPECT_TRUE(is_gzip(read_text_file(path("panda.fixture.json.gz"))));
  EXPECT_EQ(fixture_text(fixture_to_json(read_fixture_file(path("panda.fixture.json.gz")))),
            fixture_text(fixture_to_json(make_fixture(load_model(kData + "/models/panda.urdf"), 2, 5, *Precision::parse("bin50")))));
}

#ifdef RBDREF_HAVE_BULLET
// The audit's diagnosis of an engine that declares its contact model but does not reach it:
// Bullet's 10 Gauss-Seidel sweeps on the box's four corners (sample s003) are its numbers, and the
// diagnosis names that sample, not one where the model explains the departure.
TEST_F(FixtureCli, AuditNamesTheSampleWhereAnEngineMissesItsOwnContactModel) {
  std::string err;
  EXPECT_EQ(run("audit --no-baseline --models box_contacts --engines bullet --out " + path("audit"), &err), 1) << err;
  const json a = read_json_file(path("audit/audit.json"));
  ASSERT_EQ(a["runs"].size(), 1u) << a.dump();
  const std::string d = a["runs"][0]["diagnosis"].get<std::string>();
  EXPECT_NE(d.find("does not reach its own declared contact model at sample s003"), std::string::npos) << d;
}
#endif

// `rbdref engines`: the registry as text and as JSON, every built adapter with its version, the
// known engines this build lacks as not built.
TEST_F(FixtureCli, EnginesListsTheRegistry) {
  std::string err;
  ASSERT_EQ(run("engines --json", &err), 0) << err;
  const json reg = read_json_file(path("out.txt"));
  EXPECT_EQ(reg["format"], "rbdref.engines");
  std::set<std::string> built, listed;
  for (const json& e : reg["engines"]) {
    listed.insert(e["name"].get<std::string>());
    if (!e["built"].get<bool>()) continue;
    built.insert(e["name"].get<std::string>());
    EXPECT_FALSE(e["version"].get<std::string>().empty());
  }
  std::set<std::string> adapters;
  for (const auto& a : available_adapters()) adapters.insert(a->name());
  EXPECT_EQ(built, adapters);
  EXPECT_TRUE(listed.count("pinocchio"));  // known, no adapter
  ASSERT_EQ(run("engines", &err), 0) << err;
  const std::string text = read_text_file(path("out.txt"));
  for (const std::string& n : adapters) EXPECT_NE(text.find(n + " "), std::string::npos) << n << " missing from:\n" << text;
}

// The main job end to end on one model: exit 0, the files it promises, a summary line per run;
// an unknown model or engine is bad input. Bullet's C keeps 8.9 digits at the pendulum's
// near-singular sample (a finding, tests/bullet_adapter_test.cpp): without the bundled baseline
// (fixtures/baseline.json, which knows it) it fails the audit.
TEST_F(FixtureCli, AuditWritesReportsAndJunit) {
  std::string err;
  std::string engines;
  for (const auto& a : available_adapters()) engines += (engines.empty() ? "" : ",") + a->name();
  const int st = run("audit --models double_pendulum,all_joints --engines " + engines + " --out " + path("audit"), &err);
  EXPECT_EQ(st, 0) << err;
  EXPECT_TRUE(fs::exists(path("audit/audit.json")));
  EXPECT_TRUE(fs::exists(path("audit/junit.xml")));
  const json a = read_json_file(path("audit/audit.json"));
  EXPECT_EQ(a["format"], "rbdref.audit");
  bool unsupported_named = false;
  for (const json& r : a["runs"])
    if (r["model"] == "all_joints" && r["status"] == "unsupported" && r["reason"].get<std::string>().find("helical") != std::string::npos)
      unsupported_named = true;  // MuJoCo's reason (DART's names the cylindrical joint)
#ifdef RBDREF_HAVE_MUJOCO
  EXPECT_TRUE(unsupported_named) << a["runs"].dump();
  EXPECT_TRUE(fs::exists(path("audit/mujoco/double_pendulum.report.json")));
#endif
  EXPECT_EQ(run("audit --models nosuchmodel --out " + path("audit2"), &err), 2);
  EXPECT_NE(err.find("nosuchmodel"), std::string::npos) << err;
  EXPECT_EQ(run("audit --engines nosuchengine --out " + path("audit3"), &err), 2);
  EXPECT_NE(err.find("nosuchengine"), std::string::npos) << err;
#ifdef RBDREF_HAVE_BULLET
  EXPECT_EQ(run("audit --no-baseline --models double_pendulum --engines bullet --out " + path("audit4"), &err), 1) << err;
#endif
}

// `audit --model`: the user's own URDF, its fixture made once and cached by model hash × samples ×
// seed (a second audit reuses it; an edited model does not); options that apply to --model alone
// are refused without it; a missing file is bad input naming it; an engine that refuses a
// non-physical inertia (MuJoCo, Simbody) reports the model unsupported, with the body named.
TEST_F(FixtureCli, AuditRunsTheUsersOwnModelsWithACachedFixture) {
  std::string err;
  const std::string urdf = std::string(RBDREF_SOURCE_DIR) + "/tests/data/urdf_corpus/anymal_style_quadruped.urdf";
  // dart-urdf is left out: DART's URDF loader gives this quadruped's bare frames (imu_link,
  // LF_hip_fixed, ...) 1 kg each, a model-import finding (tests/dart_adapter_test.cpp).
  std::string engines;
  for (const auto& a : available_adapters())
    if (a->name() != "dart-urdf") engines += (engines.empty() ? "" : ",") + a->name();
  const std::string args = "audit --engines " + engines + " --model " + urdf + " --floating-base --samples 2 --cache " + path("cache") +
                           " --out " + path("a");
  ASSERT_EQ(run(args, &err), 0) << err << read_text_file(path("out.txt"));
  EXPECT_NE(err.find("making the fixture of anymal_style_quadruped"), std::string::npos) << err;
  size_t cached = 0;
  for (const auto& e : fs::directory_iterator(path("cache/fixtures"))) {
    ++cached;
    EXPECT_NE(e.path().filename().string().find("-n2-s1.fixture.json"), std::string::npos) << e.path();
    EXPECT_EQ(read_fixture_file(e.path().string()).samples.size(), 2u);
  }
  EXPECT_EQ(cached, 1u);
  const json a = read_json_file(path("a/audit.json"));
  ASSERT_FALSE(a["runs"].empty());
  for (const json& r : a["runs"]) EXPECT_EQ(r["model"], "anymal_style_quadruped") << r.dump();  // the bundled models are not run
  ASSERT_EQ(run(args, &err), 0) << err;
  EXPECT_NE(err.find("reusing the cached fixture"), std::string::npos) << err;
  EXPECT_EQ(err.find("making the fixture"), std::string::npos) << err;
  // An edited model hashes differently: a new fixture.
  std::string text = read_text_file(urdf);
  const size_t at = text.find("<mass value=\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 13, "1");
  ASSERT_EQ(run("audit --engines " + engines + " --model " + write("edited.urdf", text) + " --floating-base --samples 2 --cache " + path("cache") +
                    " --out " + path("b"),
                &err),
            0)
      << err;
  EXPECT_NE(err.find("making the fixture of edited"), std::string::npos) << err;

  EXPECT_EQ(run("audit --floating-base --out " + path("c"), &err), 2);
  EXPECT_NE(err.find("--floating-base"), std::string::npos) << err;
  EXPECT_EQ(run("audit --model " + path("nosuch.urdf") + " --out " + path("c"), &err), 2);
  EXPECT_NE(err.find("nosuch.urdf"), std::string::npos) << err;
#ifdef RBDREF_HAVE_MUJOCO
  ASSERT_EQ(run("audit --engines mujoco --no-cache --samples 2 --model " + std::string(RBDREF_SOURCE_DIR) +
                    "/tests/data/urdf_corpus/nonphysical_inertia_arm.urdf --out " + path("d"), &err), 0) << err;
  const json d = read_json_file(path("d/audit.json"));
  ASSERT_EQ(d["runs"].size(), 1u);
  EXPECT_EQ(d["runs"][0]["status"], "unsupported");
  EXPECT_NE(d["runs"][0]["reason"].get<std::string>().find("body 'link3': principal moments 0.001, 0.0012, 0.00275 break A + B >= C"),
            std::string::npos) << d.dump();
  EXPECT_FALSE(fs::exists(path("cache2")));
#endif
}

#ifdef RBDREF_HAVE_MUJOCO
// `rbdref hunt`: seed 146 draws a 4-body tree with a link 250 m from its joint, on which MuJoCo
// (world coordinates) keeps 12 digits of H; the hunt finds it on its first trial, shrinks it, and
// writes a reproducer whose files reproduce the failure through `compare`; the shrunk model loads.
// Unknown engines and import-path adapters are bad input.
TEST_F(FixtureCli, HuntFindsShrinksAndWritesAReproducer) {
  std::string err;
  ASSERT_EQ(run("hunt --engine mujoco --seed 146 --budget 120 --max-findings 1 --out " + path("h"), &err), 1) << err;
  const json doc = json::parse(read_text_file(path("out.txt")));
  EXPECT_EQ(doc["format"], "rbdref.hunt");
  ASSERT_EQ(doc["findings"].size(), 1u) << doc.dump();
  const json& f = doc["findings"][0];
  EXPECT_EQ(f["seed"], 146);
  EXPECT_NE(f["signature"].get<std::string>().find("H"), std::string::npos) << f.dump();
  EXPECT_LE(f["bodies"].get<int>(), f["bodies_before"].get<int>());
  const std::string dir = f["folder"];
  for (const char* file : {"model.json", "fixture.json", "engine.json", "report.json", "README.md"})
    EXPECT_TRUE(fs::exists(dir + "/" + file)) << file;
  const LoadedModel lm = load_model(dir + "/model.json");
  EXPECT_EQ(static_cast<int>(lm.desc.bodies.size()), f["bodies"].get<int>());
  EXPECT_EQ(run("compare " + dir + "/fixture.json " + dir + "/engine.json --report " + path("again.json"), &err), 1) << err;
  // The shrunk run still fails the way the finding did: H outside tolerance.
  bool h_fails = false;
  const json again = read_json_file(path("again.json"));
  for (const json& q : again["quantities"]) h_fails = h_fails || (q["quantity"] == "H" && !q["passed"].get<bool>());
  EXPECT_TRUE(h_fails) << again.dump().substr(0, 1500);
  EXPECT_EQ(run("hunt --engine nosuch --budget 1 --out " + path("h2"), &err), 2);
  EXPECT_NE(err.find("nosuch"), std::string::npos) << err;
  EXPECT_EQ(run("hunt --engine mujoco-urdf --budget 1 --out " + path("h3"), &err), 2);
  EXPECT_NE(err.find("import path"), std::string::npos) << err;
}
#endif

#ifdef RBDREF_HAVE_MUJOCO
// CI baselines (reports/baseline.hpp): far_arm's H on MuJoCo (12.4 digits, outside tolerance) is a
// known discrepancy of the bundled baseline: the audit exits 0 and prints it as known; JUnit skips
// it. A hand-edited baseline that expects more digits, or lacks the entry, makes it a regression
// (exit 1, named); --write-baseline records what ran, keeping the hand-written reason; a previous
// audit.json serves as a baseline; a malformed baseline is bad input naming its field.
TEST_F(FixtureCli, AuditJudgesAgainstABaseline) {
  std::string err;
  const std::string args = "audit --models far_arm,double_pendulum --engines mujoco --out " + path("a");
  ASSERT_EQ(run(args, &err), 0) << err;
  std::string out = read_text_file(path("out.txt"));
  EXPECT_NE(out.find("known: baseline"), std::string::npos) << out;
  EXPECT_NE(out.find("0 engine × model with regressions, 1 with known"), std::string::npos) << out;
  json a = read_json_file(path("a/audit.json"));
  for (const json& r : a["runs"])
    EXPECT_EQ(r["baseline"]["status"], r["model"] == "far_arm" ? "known" : "matches") << r.dump();
  EXPECT_NE(read_text_file(path("a/junit.xml")).find("<skipped message=\"known discrepancy (baseline "), std::string::npos);
  EXPECT_EQ(read_text_file(path("a/junit.xml")).find("<failure"), std::string::npos);

  // Judged by tolerance alone it fails.
  EXPECT_EQ(run(args + " --no-baseline", &err), 1) << err;

  json b = read_json_file(kData + "/baseline.json");
  json* far = nullptr;
  for (json& e : b["runs"])
    if (e["engine"] == "mujoco" && e["model"] == "far_arm") far = &e;
  ASSERT_NE(far, nullptr);
  EXPECT_FALSE((*far)["reason"].get<std::string>().empty());
  // Expecting more digits than MuJoCo keeps: a loss beyond the margin.
  json raised = b;
  for (json& e : raised["runs"])
    if (e["engine"] == "mujoco" && e["model"] == "far_arm") e["digits"]["H"] = 13.5;
  EXPECT_EQ(run(args + " --baseline " + write("raised.json", raised.dump()), &err), 1) << err;
  out = read_text_file(path("out.txt"));
  EXPECT_NE(out.find("REGRESSION mujoco × far_arm: H: 12.4 digits, the baseline has 13.5"), std::string::npos) << out;
  // A loss inside tolerance is a regression too (the ratchet): double_pendulum's H raised to 17.
  json ratchet = b;
  for (json& e : ratchet["runs"])
    if (e["engine"] == "mujoco" && e["model"] == "double_pendulum") e["digits"]["H"] = 17.0;
  EXPECT_EQ(run(args + " --baseline " + write("ratchet.json", ratchet.dump()), &err), 1) << err;
  EXPECT_NE(read_text_file(path("out.txt")).find("still inside tolerance"), std::string::npos);
  // Without the entry, far_arm is judged by tolerance: a new failure.
  json removed = b;
  removed["runs"] = json::array();
  for (const json& e : b["runs"])
    if (!(e["engine"] == "mujoco" && e["model"] == "far_arm")) removed["runs"].push_back(e);
  EXPECT_EQ(run(args + " --baseline " + write("removed.json", removed.dump()), &err), 1) << err;
  EXPECT_NE(read_text_file(path("out.txt")).find("REGRESSION mujoco × far_arm: H: outside tolerance"), std::string::npos);

  // --write-baseline: far_arm's H known with its digits, the reason kept; and the written file
  // (and the audit.json) judge the same audit as passing.
  ASSERT_EQ(run(args + " --write-baseline " + path("new.json"), &err), 0) << err;
  const json nb = read_json_file(path("new.json"));
  EXPECT_EQ(nb["format"], "rbdref.baseline");
  bool found = false;
  for (const json& e : nb["runs"])
    if (e["model"] == "far_arm") {
      found = true;
      EXPECT_EQ(e["known_failures"], json::array({"H"}));
      EXPECT_NEAR(e["digits"]["H"].get<double>(), 12.4, 0.15);
      EXPECT_EQ(e["reason"], (*far)["reason"]);
    }
  EXPECT_TRUE(found) << nb.dump();
  EXPECT_EQ(run(args + " --baseline " + path("new.json"), &err), 0) << err;
  fs::copy_file(path("a/audit.json"), path("prev_audit.json"));
  EXPECT_EQ(run(args + " --baseline " + path("prev_audit.json"), &err), 0) << err;

  // Bad baselines: exit 2, the file and the field named.
  json bad = b;
  bad["runs"][0]["digits"]["H"] = "many";
  EXPECT_EQ(run(args + " --baseline " + write("bad.json", bad.dump()), &err), 2);
  EXPECT_NE(err.find("runs[0].digits.H"), std::string::npos) << err;
  bad = b;
  bad["runs"][1]["status"] = "fine";
  EXPECT_EQ(run(args + " --baseline " + write("bad.json", bad.dump()), &err), 2);
  EXPECT_NE(err.find("runs[1].status"), std::string::npos) << err;
  bad = b;
  bad["runs"].push_back(b["runs"][0]);
  EXPECT_EQ(run(args + " --baseline " + write("bad.json", bad.dump()), &err), 2);
  EXPECT_NE(err.find("a second entry"), std::string::npos) << err;
  EXPECT_EQ(run(args + " --baseline " + write("bad.json", "{\"format\": \"rbdref.report\"}"), &err), 2);
  EXPECT_NE(err.find("format"), std::string::npos) << err;
}
#endif

}  // namespace
}  // namespace rbd::test
