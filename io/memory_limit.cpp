// The memory limit (memory_limit.hpp).
#include "io/memory_limit.hpp"

#include "io/input_error.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace rbd {

namespace {

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

std::uint64_t memory_limit_and_source(const std::string& option, std::string& source) {
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


}  // namespace rbd
