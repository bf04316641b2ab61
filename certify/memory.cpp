// The memory guard (memory.hpp).
#include "certify/memory.hpp"

#include "certify/prove.hpp"        // kMaxIntervalDigits
#include "io/input_error.hpp"
#include "io/memory_limit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace rbd {

namespace {

constexpr std::uint64_t kBase = 64ull << 20;
constexpr std::uint64_t kMatrices = 6;
// The proof's n × n interval matrices (H and LD), and its radius text (a short string, 32 bytes)
// and digits (4 bytes) of H's and L's entries (memory.hpp).
constexpr std::uint64_t kProofMatrices = 2;
constexpr std::uint64_t kProofTextBytes = 2 * (32 + 4);

}  // namespace


std::uint64_t value_bytes(const Precision& p) {
  switch (p.kind) {
    case Precision::Double: return 8;
    case Precision::LongDouble:
    case Precision::Float128: return 16;
    case Precision::Bin50: return 32;
    case Precision::Bin100: return 48;
    case Precision::Mpfr:
    default: return 32 + (static_cast<std::uint64_t>(p.mpfr_digits) * 3322 / 1000 + 63) / 64 * 8;
  }
}

std::uint64_t interval_value_bytes(int digits) {
  const std::uint64_t bits = static_cast<std::uint64_t>(std::ceil(std::max(digits, 1) * 3.321928094887362)) + 1;  // interval.cpp
  const std::uint64_t limbs = (bits + 63) / 64;
  const std::uint64_t request = 8 + 8 * limbs;                      // MPFR: a size word, then the limbs
  const std::uint64_t chunk = std::max<std::uint64_t>(32, (request + 8 + 15) / 16 * 16);  // glibc malloc
  return 64 + 2 * chunk;                                            // mpfi_t: two mpfr_t of 32 bytes
}

int proof_interval_digits(const Precision& p, int depth) { return std::min(p.digits() + 12 + std::max(depth, 0), kMaxIntervalDigits); }

std::uint64_t estimated_proof_bytes(std::uint64_t n, const Precision& p, int depth) {
  const long double per = static_cast<long double>(kProofMatrices) * interval_value_bytes(proof_interval_digits(p, depth)) + kProofTextBytes;
  const long double b = per * static_cast<long double>(n) * n;
  return b >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(b);
}

std::uint64_t estimated_memory_bytes(std::uint64_t n, const Precision& p, int concurrent, std::uint64_t proof_bytes) {
  const long double per = static_cast<long double>(kMatrices) * (value_bytes(p) + value_bytes(p.check()));
  const long double b = kBase + static_cast<long double>(concurrent < 1 ? 1 : concurrent) *
                                    (per * static_cast<long double>(n) * n + static_cast<long double>(proof_bytes));
  return b >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(b);
}


std::uint64_t memory_limit(const std::string& option) {
  std::string source;
  return memory_limit_and_source(option, source);
}

void check_memory(const std::string& file, std::uint64_t n, const Precision& p, const std::string& option, int concurrent,
                  std::uint64_t proof_bytes, int proof_digits) {
  std::string source;
  const std::uint64_t limit = memory_limit_and_source(option, source);
  const std::uint64_t need = estimated_memory_bytes(n, p, concurrent, proof_bytes);
  if (need <= limit) return;
  const bool proving = proof_bytes > 0;
  std::string hint;
  if (p.kind != Precision::Double) {
    Precision d;
    d.kind = Precision::Double;
    hint = " (--precision double: about " + format_bytes(estimated_memory_bytes(n, d, concurrent)) + (proving ? " without --prove" : "") + ")";
  }
  throw InputError(file, "", "a model of " + std::to_string(n) + " rows (DoFs, loop and contact rows) needs about " + format_bytes(need) +
                                 " at " + p.name() + ", checked at " + p.check().name() +
                                 (proving ? ", proven on intervals at up to " + std::to_string(proof_digits) + " digits (--prove)" : std::string()) +
                                 (concurrent > 1 ? ", " + std::to_string(concurrent) + " samples at once" : std::string()) +
                                 ": more than the memory limit of " + format_bytes(limit) + " (" + source + "). " +
                                 (proving ? "Without --prove it needs about " + format_bytes(estimated_memory_bytes(n, p, concurrent)) + ". "
                                          : std::string()) +
                                 "Use a smaller --precision" + hint + (concurrent > 1 ? ", fewer samples at once (fixture --threads)" : "") +
                                 ", or raise the limit with --max-memory SIZE or RBDREF_MAX_MEMORY (docs/formats.md)");
}

namespace {

// The number of bodies on the longest path from the base (prove.cpp's tree_depth).
int tree_depth(const ModelDesc& desc) {
  int depth = 0;
  std::vector<int> d(desc.bodies.size(), 0);
  for (size_t b = 0; b < desc.bodies.size(); ++b) {
    const int parent = desc.bodies[b].parent;
    d[b] = parent < 0 || static_cast<size_t>(parent) >= b ? 1 : d[static_cast<size_t>(parent)] + 1;
    depth = std::max(depth, d[b]);
  }
  return depth;
}

struct ModelNeed {
  std::uint64_t rows = 0, proof_bytes = 0;
  int proof_digits = 0;
};

ModelNeed model_need(const ModelDesc& desc, const Precision& p, Proving proving) {
  const Model<double> m = model_layout(desc);
  ModelNeed need;
  need.rows = static_cast<std::uint64_t>(m.nv + m.nc) + m.contacts.size();
  if (proving == Proving::yes) {
    const int depth = tree_depth(desc);
    need.proof_digits = proof_interval_digits(p, depth);
    need.proof_bytes = estimated_proof_bytes(need.rows, p, depth);
  }
  return need;
}

}  // namespace

std::uint64_t estimated_model_memory_bytes(const ModelDesc& desc, const Precision& p, int concurrent, Proving proving) {
  const ModelNeed need = model_need(desc, p, proving);
  return estimated_memory_bytes(need.rows, p, concurrent, need.proof_bytes);
}

void check_model_memory(const std::string& file, const ModelDesc& desc, const Precision& p, const std::string& option, int concurrent,
                        Proving proving) {
  const ModelNeed need = model_need(desc, p, proving);
  check_memory(file, need.rows, p, option, concurrent, need.proof_bytes, need.proof_digits);
}

}  // namespace rbd
