// A cache of MPFR's small blocks, installed as GMP's memory functions.
//
// rbd::mpfr, the run-time precision MPFR type, allocates the limbs of every value it creates,
// temporaries included: one malloc and one free per arithmetic result. Profiled on RNEA of the
// humanoid at 50 digits, glibc's malloc and free took several times what MPFR's arithmetic took
// (the bursts of frees of one size overflow glibc's per-thread cache of 7 blocks;
// docs/benchmarks.md, "Allocation counting and MPFR's heap").
//
// install_mpfr_block_cache() sets GMP's allocation functions (mp_set_memory_functions; MPFR
// allocates through them) to ones that keep the blocks freed by this thread in a free list per
// exact size, for sizes that are a multiple of 8 bytes up to kMaxCachedBlock (an MPFR value of up
// to ~1000 digits: a size limb and its mantissa's limbs), at most kMaxCachedPerSize blocks per
// size. Everything else goes to malloc, realloc and free as with GMP's defaults.
//
// Every block, cached or not, is a plain malloc block of the exact size GMP asked for, so blocks
// move freely between these functions and GMP's defaults (a block allocated before the install is
// freed into the cache; a cached block is freed by free()). A block is reused only for a request of
// the same size. A thread's cache is emptied (its blocks freed) when the thread ends; frees after
// that go straight to free(). The arithmetic, and so every digit, is unchanged: only where MPFR's
// memory comes from differs (tests/scalar_test.cpp, "MpfrBlockCache").
//
// The command line, the benchmarks and the test program install it at start. A program that
// uses rbdref as a library may, before or after creating MPFR values, unless it installs GMP
// memory functions of its own (theirs would then be replaced).
#pragma once

#include <cstddef>

namespace rbd {

inline constexpr std::size_t kMaxCachedBlock = 512;
inline constexpr std::size_t kMaxCachedPerSize = 4096;

void install_mpfr_block_cache();

// The number of blocks the calling thread's cache holds now (for tests).
std::size_t mpfr_block_cache_blocks();

}  // namespace rbd
