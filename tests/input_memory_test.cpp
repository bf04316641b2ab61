// Reading a JSON document takes the memory of what it keeps, not of its text (docs/formats.md,
// "Inputs are bounded"; io/json_read.cpp, JsonText): the real command, on inputs made here (never
// committed: 1 GiB of NULs gzip-compresses to ~1 MB), refuses them with exit status 2 and its peak
// resident memory (wait4's ru_maxrss of that process alone) stays within kMargin of what it takes
// on a small valid document. The inputs:
//   - a gzip of 1 GiB of NULs (at the fixture bound, so not refused by size): refused at byte 1; it
//     used to be inflated whole first (1 GiB of text, more while the string grew);
//   - a gzip of 300 MiB of spaces: parsed through to the end, which is not JSON; the whitespace used
//     to be held as the text and again by nlohmann's lexer (every byte since the last string or
//     number);
//   - the same without gzip (a 300 MiB file), and a sparse file of 900 MiB of NULs: read whole
//     before, as they are parsed now.
// kMargin: the reader holds two 64 KiB chunks of the text, the 64 KiB given to the parser and,
// for gzip, 64 KiB of compressed input and zlib's 32 KiB window: well under 1 MiB. 64 MiB is room
// for the allocator and the sanitizers, and far below the text sizes the reader used to hold.
#include "tests/cli_run.hpp"
#include "tests/test_paths.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

constexpr long kMargin = 64L << 20;

const std::string kSupport = std::string(::rbd::test::kSourceDir) + "/tests/data/malformed/support/";

// `count` bytes `c` after `prefix`, gzip-compressed (one member, zlib's run-length strategy: ~1 MB
// per GiB of one byte, in about a second) into `path`, a 1 MiB buffer at a time.
void write_gzip_of(const std::string& path, const std::string& prefix, char c, std::size_t count) {
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_RLE), Z_OK);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  const std::vector<char> block(std::size_t(1) << 20, c);
  std::vector<char> out(std::size_t(1) << 20);
  auto feed = [&](const char* data, std::size_t n, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      deflate(&z, flush);
      std::fwrite(out.data(), 1, out.size() - z.avail_out, f);
    } while (z.avail_out == 0);
  };
  feed(prefix.data(), prefix.size(), Z_NO_FLUSH);
  for (std::size_t left = count; left > 0;) {
    const std::size_t n = std::min(left, block.size());
    feed(block.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  feed(nullptr, 0, Z_FINISH);
  deflateEnd(&z);
  ASSERT_EQ(std::fclose(f), 0);
}

// `count` bytes `c` into `path` as they are (1 MiB at a time).
void write_plain_of(const std::string& path, char c, std::size_t count) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  const std::vector<char> block(std::size_t(1) << 20, c);
  for (std::size_t left = count; left > 0;) {
    const std::size_t n = std::min(left, block.size());
    ASSERT_EQ(std::fwrite(block.data(), 1, n, f), n);
    left -= n;
  }
  ASSERT_EQ(std::fclose(f), 0);
}

class InputMemory : public CliFolderTest {
 protected:
  // `rbdref ARGS` to its end; its peak resident memory in bytes (that process's alone).
  CliRun run_measured(const std::vector<std::string>& args, long& peak) const {
    const pid_t pid = start_rbdref(args, dir_.string(), "", StdoutTo::Capture, 300);
    CliRun r;
    int st = 0;
    struct rusage ru {};
    peak = -1;
    if (pid < 0 || ::wait4(pid, &st, 0, &ru) != pid) return r;
    if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) r.signal = WTERMSIG(st);
    r.out = slurp(path("stdout.txt"));
    r.err = slurp(path("stderr.txt"));
    peak = ru.ru_maxrss * 1024L;  // Linux: kilobytes
    return r;
  }

  // The command's peak on a small valid engine output: what it takes before any document is large.
  long baseline() const {
    long peak = -1;
    const CliRun r = run_measured({"check", kSupport + "good.engine.json", "--report", path("report.json")}, peak);
    EXPECT_NE(r.status, 2) << r.describe() << "\n" << r.err;
    EXPECT_GT(peak, 0);
    return peak;
  }

  // `rbdref ARGS` on a document that must be refused (exit 2, a message naming `file` and holding
  // every one of `parts`) within kMargin of the baseline.
  void expect_refused_lean(const std::vector<std::string>& args, const std::string& file, const std::vector<std::string>& parts,
                           long base) const {
    long peak = -1;
    const CliRun r = run_measured(args, peak);
    EXPECT_EQ(r.status, 2) << r.describe() << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("rbdref: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
    for (const std::string& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "'" << p << "' not in: " << r.err;
    EXPECT_LE(peak, base + kMargin) << args[0] << " " << file << ": peak " << (peak >> 20) << " MiB, baseline " << (base >> 20)
                                    << " MiB";
    std::printf("  %s on %s: peak %.1f MiB (baseline %.1f MiB)\n", args[0].c_str(), file.c_str(), peak / 1048576.0, base / 1048576.0);
  }
};

TEST_F(InputMemory, GzipOfOneGibOfNulsIsRefusedAtByteOne) {
  const long base = baseline();
  const std::string bomb = path("nuls.json.gz");
  write_gzip_of(bomb, "", '\0', std::size_t(1) << 30);  // the fixture bound exactly: not refused by size
  const std::vector<std::string> nul = {"byte 1:", "NUL byte"};
  expect_refused_lean({"compare", bomb, kSupport + "good.engine.json", "--report", path("r.json")}, "nuls.json.gz", nul, base);
  expect_refused_lean({"check", bomb}, "nuls.json.gz", nul, base);
  // After a valid start: at the first NUL, not at the end of the text.
  const std::string late = path("late.json.gz"), start = "{\"format\": \"rbdref.engine_output\",\n  ";
  write_gzip_of(late, start, '\0', std::size_t(1) << 30);
  expect_refused_lean({"check", late}, "late.json.gz", {"byte " + std::to_string(start.size() + 1) + ":", "NUL byte"}, base);
}

TEST_F(InputMemory, GzipOf300MibOfSpacesIsNotStored) {
  const long base = baseline();
  const std::string bomb = path("spaces.json.gz");
  const std::size_t n = std::size_t(300) << 20;
  write_gzip_of(bomb, "", ' ', n);
  // Parsed to the end, which holds no value; the position is the file's (past its last byte).
  const std::vector<std::string> parts = {"expected valid JSON", "unexpected end of input",
                                          "at line 1, column " + std::to_string(n + 1) + ":"};
  expect_refused_lean({"compare", bomb, kSupport + "good.engine.json", "--report", path("r.json")}, "spaces.json.gz", parts, base);
  expect_refused_lean({"check", bomb}, "spaces.json.gz", parts, base);
}

TEST_F(InputMemory, LargeUncompressedFilesAreParsedAsTheyAreRead) {
  const long base = baseline();
  const std::string spaces = path("spaces.json");
  write_plain_of(spaces, ' ', std::size_t(300) << 20);
  expect_refused_lean({"check", spaces}, "spaces.json", {"unexpected end of input", "column " + std::to_string((300 << 20) + 1)}, base);
  const std::string nuls = path("nuls.json");  // sparse: 900 MiB of NULs, no disk
  std::FILE* f = std::fopen(nuls.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_EQ(::truncate(nuls.c_str(), off_t(900) << 20), 0);
  expect_refused_lean({"check", nuls}, "nuls.json", {"byte 1:", "NUL byte"}, base);
}

}  // namespace
}  // namespace rbd::test
