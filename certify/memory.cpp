// The memory guard (memory.hpp).
#include "certify/memory.hpp"

#include "io/input_error.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace rbd {

namespace {

constexpr std::uint64_t kBase = 64ull << 20;
constexpr std::uint64_t kMatrices = 6;

// "4G", "512M", "1000000": bytes; 0 when malformed.
std::uint64_t parse_size(const std::string& s) {
  if (s.empty() || s.size() > 24) return 0;
  size_t i = 0;
  std::uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (v > (UINT64_MAX - 9) / 10) return 0;
    v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
  }
  if (i == 0) return 0;
  int shift = 0;
  if (i + 1 == s.size()) {
    switch (s[i]) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      case 'T': case 't': shift = 40; break;
      default: return 0;
    }
  } else if (i != s.size()) {
    return 0;
  }
  if (shift && v > (UINT64_MAX >> shift)) return 0;
  return v << shift;
}

}  // namespace

std::string format_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1ull << 30));
  else std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(b) / (1ull << 20));
  return buf;
}

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

std::uint64_t estimated_memory_bytes(std::uint64_t n, const Precision& p, int concurrent) {
  const long double per = static_cast<long double>(kMatrices) * (value_bytes(p) + value_bytes(p.check()));
  const long double b = kBase + static_cast<long double>(concurrent < 1 ? 1 : concurrent) * per * static_cast<long double>(n) * n;
  return b >= static_cast<long double>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(b);
}

namespace {

std::uint64_t limit_and_source(const std::string& option, std::string& source) {
  if (!option.empty()) {
    const std::uint64_t v = parse_size(option);
    if (!v) throw InputError("--max-memory", "", "expected a size in bytes, with an optional K, M, G or T suffix (e.g. 8G), got '" + option + "'");
    source = "--max-memory " + option;
    return v;
  }
  if (const char* e = std::getenv("RBDREF_MAX_MEMORY"); e && *e) {
    const std::uint64_t v = parse_size(e);
    if (!v) throw InputError("RBDREF_MAX_MEMORY", "", "expected a size in bytes, with an optional K, M, G or T suffix (e.g. 8G), got '" + std::string(e) + "'");
    source = "RBDREF_MAX_MEMORY=" + std::string(e);
    return v;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  std::uint64_t limit = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 4 * 3 : UINT64_MAX;
  source = "3/4 of the physical memory";
  struct rlimit rl;
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 * 3 < limit) {
    limit = rl.rlim_cur / 4 * 3;
    source = "3/4 of the address-space limit (ulimit -v)";
  }
  return limit;
}

}  // namespace

std::uint64_t memory_limit(const std::string& option) {
  std::string source;
  return limit_and_source(option, source);
}

void check_memory(const std::string& file, std::uint64_t n, const Precision& p, const std::string& option, int concurrent) {
  std::string source;
  const std::uint64_t limit = limit_and_source(option, source);
  const std::uint64_t need = estimated_memory_bytes(n, p, concurrent);
  if (need <= limit) return;
  std::string hint;
  if (p.kind != Precision::Double) {
    Precision d;
    d.kind = Precision::Double;
    hint = " (--precision double: about " + format_bytes(estimated_memory_bytes(n, d, concurrent)) + ")";
  }
  throw InputError(file, "", "a model of " + std::to_string(n) + " rows (DoFs, loop and contact rows) needs about " + format_bytes(need) +
                                 " at " + p.name() + ", checked at " + p.check().name() +
                                 (concurrent > 1 ? ", " + std::to_string(concurrent) + " samples at once" : std::string()) +
                                 ": more than the memory limit of " + format_bytes(limit) + " (" + source +
                                 "). Use a smaller --precision" + hint + (concurrent > 1 ? ", fewer samples at once (fixture --threads)" : "") +
                                 ", or raise the limit with --max-memory SIZE or RBDREF_MAX_MEMORY (docs/formats.md)");
}

void check_model_memory(const std::string& file, const ModelDesc& desc, const Precision& p, const std::string& option, int concurrent) {
  const Model<double> m = model_layout(desc);
  check_memory(file, static_cast<std::uint64_t>(m.nv + m.nc) + m.contacts.size(), p, option, concurrent);
}

}  // namespace rbd
