// The memory guard: what a model needs at a precision, estimated before anything is allocated,
// against a limit, so that a model too large for the machine is refused with a message (exit 2)
// instead of being killed half-way (docs/formats.md, "Inputs are bounded").
//
// A run at precision p evaluates the model at p and at p.check() (certify/precision.hpp) and holds
// a few dense n × n matrices at each (H, its factor, H⁻¹ columns, the Jacobians' products); n is
// the DoFs plus the loop and contact rows. Measured on chains of 200 to 1600 DoFs (`eval`, peak
// resident memory): ≈ 6 · n² · (bytes(p) + bytes(check)) above a base of ~40 MB, bytes(T) the size
// of one value with its limbs (8 for double, 32 for bin50, 48 for bin100; MPFR 32 + bits / 8).
// The estimate is that formula with a 64 MiB base; for MPFR it is about twice the measured peak
// (its check runs after the working precision's values are freed), which errs on the safe side.
//
// The limit: --max-memory SIZE where a command takes it, else RBDREF_MAX_MEMORY, else 3/4 of the
// physical memory or of the address-space limit (ulimit -v), whichever is smaller. SIZE is bytes
// with an optional K, M, G or T suffix (powers of 1024).
#pragma once

#include "certify/precision.hpp"
#include "io/model_io.hpp"

#include <cstdint>
#include <string>

namespace rbd {

// Bytes one value of p's scalar takes, limbs included.
std::uint64_t value_bytes(const Precision& p);
// The estimate above for n rows, `concurrent` evaluations at once (fixture's worker threads).
std::uint64_t estimated_memory_bytes(std::uint64_t n, const Precision& p, int concurrent = 1);
// The limit; `option` is the --max-memory text ("" when not given). InputError naming --max-memory
// or RBDREF_MAX_MEMORY on a malformed size.
std::uint64_t memory_limit(const std::string& option);
// InputError(file, "", …) when the estimate exceeds the limit: how much, the limit and where it
// comes from, and what to do (a smaller precision, with its estimate; --max-memory).
void check_memory(const std::string& file, std::uint64_t n, const Precision& p, const std::string& option, int concurrent = 1);
// check_memory for a model: n = its DoFs, loop rows and contacts; `file` names it in the message.
void check_model_memory(const std::string& file, const ModelDesc& desc, const Precision& p, const std::string& option,
                        int concurrent = 1);
// "1.2 GiB", "340 MiB".
std::string format_bytes(std::uint64_t b);

}  // namespace rbd
