// The libFuzzer entry point of one fuzz target (fuzz/harness.hpp), chosen when compiled:
// RBDREF_FUZZ_TARGET is the target's name. A finding aborts, so that libFuzzer reports it and
// saves the input (crashes and sanitizer reports it catches itself).
#include "fuzz/harness.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rbd::fuzz::Target* const target = rbd::fuzz::find_target(RBDREF_FUZZ_TARGET);
  if (!target) {
    std::fprintf(stderr, "rbdref fuzz: no target named '%s'\n", RBDREF_FUZZ_TARGET);
    std::abort();
  }
  const std::string f = rbd::fuzz::finding(*target, std::string(reinterpret_cast<const char*>(data), size));
  if (!f.empty()) {
    std::fprintf(stderr, "rbdref fuzz finding (%s): %s\n", target->name, f.c_str());
    std::abort();
  }
  return 0;
}
