// The fixture and engine-output formats in memory: round trips byte for byte, the tree layout of
// H and L, the streamed writer (the same document as make_fixture + fixture_to_json), gzip on
// threads, version-2 fixtures still read, what make_fixture draws and how it rounds what it
// stores, and a malformed tree-layout row named by its field. The same formats through the
// `rbdref` commands, bad input included, are the FixtureCli tests'.
#include "io/engine_output.hpp"
#include "tests/test_paths.hpp"
#include "fixtures/fixture.hpp"
#include "io/json_stream.hpp"
#include "tests/fixture_test_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

namespace rbd::test {
namespace {

namespace fs = std::filesystem;

TEST(Fixture, RoundTripKeepsEveryByte) {
  const std::string text = fixture_text(fixture_to_json(small_fixture()));
  const Fixture back = read_fixture(json::parse(text), "mem");
  EXPECT_EQ(fixture_text(fixture_to_json(back)), text);
}

TEST(Fixture, GoldenFixturesReadAndMatchTheirModels) {
  int goldens = 0;
  for (const auto& entry : fs::directory_iterator(kData + "/golden")) {
    const Fixture f = read_fixture_file(entry.path().string());  // throws on a hash mismatch
    EXPECT_GE(f.samples.size(), 3u) << entry.path();
    EXPECT_EQ(fixture_text(fixture_to_json(f)), read_text_file(entry.path().string())) << entry.path();
    ++goldens;
  }
  EXPECT_GE(goldens, 18) << "the bundled goldens (fixtures/golden) are missing";
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

// The field read_fixture names when it refuses `doc` resealed (its checksum recomputed, so that the
// reader gets past it to the content), its message in *what; "(accepted)" when it reads it.
std::string refused_field(json doc, std::string* what = nullptr) {
  doc["checksum"] = fixture_checksum(doc);
  try {
    read_fixture(doc, "f.json");
    return "(accepted)";
  } catch (const InputError& e) {
    if (what) *what = e.what();
    return e.field();
  }
}

// A tree-layout row of the wrong length, or a layout that is not one, is bad input, named.
TEST(Fixture, TreeLayoutRowOfTheWrongLengthIsNamed) {
  nlohmann::ordered_json doc = fixture_to_json(small_fixture());
  ASSERT_EQ(doc["samples"][1]["layouts"]["H"], "tree");
  doc["samples"][1]["outputs"]["H"][1].push_back("1.0");
  std::string what;
  EXPECT_EQ(refused_field(json::parse(doc.dump()), &what), "samples[1].outputs.H[1]");
  EXPECT_NE(what.find("tree layout"), std::string::npos) << what;
  json k = json::parse(fixture_to_json(small_fixture()).dump());
  k["samples"][2]["layouts"]["L"] = "sparse";
  EXPECT_EQ(refused_field(k), "samples[2].layouts.L");
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

// Fixtures of version 2 (full rows, every digit) are still read, and say what a fixture made now
// says: the same entries, within the stored rounding, digits within one (version 2 certified from
// the decimal text; now from the values themselves).
TEST(Fixture, Version2FixturesAreStillRead) {
  const std::string file = std::string(::rbd::test::kSourceDir) + "/tests/data/fixtures_v2/double_pendulum_v2.json";
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

// The block-parallel gzip writer (io/gzip.cpp, GzipStreambuf): one gzip member that our gunzip
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
  e.model_sha256 = std::string(64, 'a');
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

}  // namespace
}  // namespace rbd::test
