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
// With --prove (eval, fixture; certify/prove.hpp) the proof runs after the evaluation, on intervals
// (MPFI: two MPFR bounds, each with its limbs on the heap) at D interval digits, and holds n × n
// interval matrices at D (H and its LᵀDL factor LD; on the articulated route LD, with the first
// attempt's H still in malloc's free lists), plus the radius text and digits of H and L. D grows
// with the depth: the proof starts at the working digits + 12 + depth/4 and widens by what it
// lacks (prove.cpp); the articulated factor needs + ~0.9 digits per body, and table 6.3's route
// reached + 0.72 per body on random chains (2 or 3 attempts). The estimate takes the bound
//     D = working digits + 12 + depth (at most kMaxIntervalDigits)
//     proof = (2 · interval_bytes(D) + 72) · n²   per evaluation at once, added to the above,
// interval_bytes(D) = 64 + 2 · malloc(8 + 8 · limbs(D)) (interval_value_bytes). On a chain D grows
// with n, so the proof grows as n³ where the evaluation grows as n². Measured (eval --prove at bin50,
// peak resident memory; docs/formats.md, "Models are bounded"): chains of 100 to 1000 bodies and a
// 1000-body tree stay below the estimate, by 15 % (500 bodies) to 86 %. A proof that widens beyond
// the bound (an undecided branch: at most 4 attempts, kMaxIntervalDigits) can exceed it.
//
// The limit: --max-memory SIZE where a command takes it, else RBDREF_MAX_MEMORY, else 3/4 of the
// physical memory or of the address-space limit (ulimit -v), whichever is smaller. SIZE is bytes
// with an optional K, M, G or T suffix (powers of 1024).
#pragma once

#include "certify/precision.hpp"
#include "io/memory_limit.hpp"  // the limit, format_bytes
#include "io/model_io.hpp"

#include <cstdint>
#include <string>

namespace rbd {

// Whether the command proves its values on intervals (--prove): the estimate then includes the proof.
enum class Proving { no, yes };

// Bytes one value of p's scalar takes, limbs included.
std::uint64_t value_bytes(const Precision& p);
// Bytes one interval at `digits` interval digits takes: the mpfi_t and its two bounds' limbs as
// malloc gives them (8 bytes of MPFR's header, 16-byte chunks with 8 bytes of malloc's own).
std::uint64_t interval_value_bytes(int digits);
// The interval digits the estimate bounds a proof's by at precision p on a model of that depth
// (bodies on the longest path from the base): p.digits() + 12 + depth, at most kMaxIntervalDigits.
int proof_interval_digits(const Precision& p, int depth);
// The proof's part of the estimate for n rows (one evaluation).
std::uint64_t estimated_proof_bytes(std::uint64_t n, const Precision& p, int depth);
// The estimate above for n rows, `concurrent` evaluations at once (fixture's worker threads), each
// with a proof of `proof_bytes` (estimated_proof_bytes; 0: no proof).
std::uint64_t estimated_memory_bytes(std::uint64_t n, const Precision& p, int concurrent = 1, std::uint64_t proof_bytes = 0);
// The estimate for a model: n = its DoFs, loop rows and contacts, with its proof when `proving`.
std::uint64_t estimated_model_memory_bytes(const ModelDesc& desc, const Precision& p, int concurrent = 1, Proving proving = Proving::no);
// The limit; `option` is the --max-memory text ("" when not given). InputError naming --max-memory
// or RBDREF_MAX_MEMORY on a malformed size.
std::uint64_t memory_limit(const std::string& option);
// InputError(file, "", …) when the estimate exceeds the limit: how much, the limit and where it
// comes from, and what to do (a smaller precision, with its estimate; --max-memory).
// `proof_bytes` and `proof_digits`: the proof's part (estimated_proof_bytes) and its interval
// digits (proof_interval_digits), 0 without --prove (the message then also gives the estimate without the proof).
void check_memory(const std::string& file, std::uint64_t n, const Precision& p, const std::string& option, int concurrent = 1,
                  std::uint64_t proof_bytes = 0, int proof_digits = 0);
// check_memory for a model: n = its DoFs, loop rows and contacts, its proof included when
// `proving` (eval --prove, fixture --prove); `file` names it in the message.
void check_model_memory(const std::string& file, const ModelDesc& desc, const Precision& p, const std::string& option,
                        int concurrent = 1, Proving proving = Proving::no);
}  // namespace rbd
