// The MPFR block cache (reference/numeric/mpfr_block_cache.hpp): installed for the whole test program, as
// the command line installs it, so that every MPFR test runs on it; and tested here for reuse,
// size classes, realloc, threads, and blocks that cross to and from GMP's default functions.
#include "reference/numeric/mpfr_block_cache.hpp"
#include "reference/numeric/scalar.hpp"

#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <thread>
#include <vector>

namespace rbd::test {
namespace {

// Before main, like the command line's first statement. Blocks already allocated by then are
// plain malloc blocks, which the cache takes back like its own.
const bool kInstalled = (install_mpfr_block_cache(), true);

// In a thread of its own, whose lists start empty: the main thread's may be full (at most
// kMaxCachedPerSize blocks per size) after the tests that ran before in the same process.
void reuse_and_exactness() {
  const ScopedMpfrDigits digits(50);
  const std::size_t s0 = mpfr_block_cache_blocks();
  {
    std::vector<mpfr> v;
    for (int i = 0; i < 200; ++i) v.emplace_back(i);
  }
  const std::size_t s1 = mpfr_block_cache_blocks();
  EXPECT_GE(s1, s0 + 200);  // the 200 values' blocks are kept, not freed
  {
    std::vector<mpfr> v;
    for (int i = 0; i < 200; ++i) v.emplace_back(i);
    EXPECT_LE(mpfr_block_cache_blocks(), s1 - 200);  // and taken again
    // Reused blocks hold exact values: the sum of 0..199 and √2 to the precision.
    mpfr sum(0);
    for (const mpfr& x : v) sum += x;
    EXPECT_EQ(sum, mpfr(19900));
  }
  const mpfr r = sqrt(mpfr(2));
  EXPECT_LT(abs(r * r - 2), mpfr("1e-48"));
}

TEST(MpfrBlockCache, FreedValuesAreReusedAndValuesStayExact) {
  ASSERT_TRUE(kInstalled);
  std::thread(reuse_and_exactness).join();
}

// Values of two precisions interleaved: their blocks differ in size and must never be swapped (a
// block of 50 digits' limbs handed out for 100 digits would overflow; the sanitized build reports
// that, the normal one fails the exactness below).
TEST(MpfrBlockCache, SizesAreNeverMixed) {
  mpfr_t a, b, c;
  for (int round = 0; round < 50; ++round) {
    mpfr_init2(a, 167);  // 50 digits: 3 limbs
    mpfr_init2(b, 333);  // 100 digits: 6 limbs
    mpfr_set_ui(a, 3, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    mpfr_set_ui(b, 3, MPFR_RNDN);
    mpfr_sqrt(b, b, MPFR_RNDN);
    mpfr_init2(c, 333);
    mpfr_set(c, a, MPFR_RNDN);
    mpfr_sub(c, b, c, MPFR_RNDN);  // √3 at 100 digits minus √3 rounded to 50: ~1e-50, not 0, not 1
    EXPECT_LT(std::fabs(mpfr_get_d(c, MPFR_RNDN)), 1e-49);
    EXPECT_NE(mpfr_get_d(c, MPFR_RNDN), 0.0);
    mpfr_clear(b);  // freed in another order than allocated
    mpfr_clear(a);
    mpfr_clear(c);
  }
}

// mpfr_set_prec reallocates: the value's block moves to the larger size class.
TEST(MpfrBlockCache, ReallocationKeepsTheValue) {
  mpfr_t x;
  mpfr_init2(x, 64);
  for (mpfr_prec_t p : {128, 1000, 5000, 64}) {  // 5000 bits is above the cached sizes
    mpfr_set_prec(x, p);
    mpfr_set_ui(x, 7, MPFR_RNDN);
    mpfr_div_ui(x, x, 3, MPFR_RNDN);
    mpfr_mul_ui(x, x, 3, MPFR_RNDN);
    EXPECT_EQ(mpfr_cmp_ui(x, 7), 0) << p;
  }
  mpfr_clear(x);
  // GMP's realloc entry point itself, between cached and uncached sizes.
  void* (*alloc)(std::size_t);
  void* (*re)(void*, std::size_t, std::size_t);
  void (*release)(void*, std::size_t);
  mp_get_memory_functions(&alloc, &re, &release);
  unsigned char* p = static_cast<unsigned char*>(alloc(24));
  for (int i = 0; i < 24; ++i) p[i] = static_cast<unsigned char>(i);
  p = static_cast<unsigned char*>(re(p, 24, 4096));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(p[i], i);
  p = static_cast<unsigned char*>(re(p, 4096, 16));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(p[i], i);
  release(p, 16);
}

// Each thread has its own lists; a thread's blocks are freed when it ends (LeakSanitizer checks
// that in the sanitized build), and values made in one thread may be freed in another.
TEST(MpfrBlockCache, ThreadsKeepTheirOwnListsAndFreeThemAtExit) {
  std::vector<mpfr> made_here;
  for (int i = 0; i < 10; ++i) made_here.emplace_back(i);
  std::size_t in_thread = 0;
  std::thread t([&] {
    const ScopedMpfrDigits digits(50);
    {
      std::vector<mpfr> v;
      for (int i = 0; i < 100; ++i) v.emplace_back(i);
    }
    in_thread = mpfr_block_cache_blocks();
    made_here.clear();  // freed into this thread's lists
  });
  t.join();
  EXPECT_GE(in_thread, 100u);
  EXPECT_TRUE(made_here.empty());
}

}  // namespace
}  // namespace rbd::test
