// The memory limit that rbdref's guards check against: --max-memory SIZE where a command takes it,
// else RBDREF_MAX_MEMORY, else 3/4 of the physical memory or of the address-space limit (ulimit -v),
// whichever is smaller. SIZE is bytes with an optional K, M, G or T suffix (powers of 1024).
// certify/memory.hpp estimates what a computation needs; the MJCF reader bounds the expressions
// it derives (io/mjcf.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace rbd {

// The limit, and where it comes from ("--max-memory 8G", "RBDREF_MAX_MEMORY=2M", "3/4 of the
// physical memory"); `option` is the --max-memory text ("" when not given). InputError naming
// --max-memory or RBDREF_MAX_MEMORY on a malformed size.
std::uint64_t memory_limit_and_source(const std::string& option, std::string& source);
// "1.2 GiB", "340 MiB".
std::string format_bytes(std::uint64_t b);

}  // namespace rbd
