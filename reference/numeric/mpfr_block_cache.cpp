// A cache of MPFR's small blocks (reference/numeric/mpfr_block_cache.hpp).
#include "reference/numeric/mpfr_block_cache.hpp"

#include <gmp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rbd {
namespace {

// Size class c holds the blocks of exactly 8 (c + 1) bytes.
constexpr std::size_t kClasses = kMaxCachedBlock / 8;

struct FreeBlock {
  FreeBlock* next;
};

// One thread's free lists. Plain data with a trivial destructor, so that it stays usable after
// the thread's destructors have run (`closed` then sends every free to free()).
struct Lists {
  FreeBlock* head[kClasses];
  std::size_t count[kClasses];
  bool closed;
};
thread_local Lists t_lists{};

// The index of a size the cache keeps, or -1.
int size_class(std::size_t n) {
  return (n >= 8 && n <= kMaxCachedBlock && n % 8 == 0) ? static_cast<int>(n / 8 - 1) : -1;
}

void drain(Lists& l) {
  for (std::size_t c = 0; c < kClasses; ++c) {
    while (FreeBlock* b = l.head[c]) {
      l.head[c] = b->next;
      std::free(b);
    }
    l.count[c] = 0;
  }
}

// Empties the thread's lists when the thread ends; constructed when the thread first caches a
// block (a thread-local's destructor is registered on its construction).
struct Closer {
  ~Closer() {
    drain(t_lists);
    t_lists.closed = true;
  }
};

[[noreturn]] void out_of_memory(std::size_t n) {
  std::fprintf(stderr, "rbdref: cannot allocate %zu bytes for an MPFR value\n", n);
  std::abort();  // GMP's own allocation functions abort too: GMP cannot report a failure
}

void* cache_alloc(std::size_t n) {
  const int c = size_class(n);
  if (c >= 0) {
    Lists& l = t_lists;
    if (FreeBlock* b = l.head[c]) {
      l.head[c] = b->next;
      --l.count[c];
      return b;
    }
  }
  void* p = std::malloc(n);
  if (!p) out_of_memory(n);
  return p;
}

void cache_free(void* p, std::size_t n) {
  if (!p) return;
  const int c = size_class(n);
  Lists& l = t_lists;
  if (c >= 0 && !l.closed && l.count[c] < kMaxCachedPerSize) {
    static thread_local Closer closer;
    (void)closer;
    FreeBlock* b = static_cast<FreeBlock*>(p);
    b->next = l.head[c];
    l.head[c] = b;
    ++l.count[c];
    return;
  }
  std::free(p);
}

void* cache_realloc(void* p, std::size_t old_n, std::size_t new_n) {
  if (!p) return cache_alloc(new_n);
  if (size_class(old_n) < 0 && size_class(new_n) < 0) {
    void* q = std::realloc(p, new_n);
    if (!q) out_of_memory(new_n);
    return q;
  }
  void* q = cache_alloc(new_n);
  std::memcpy(q, p, std::min(old_n, new_n));
  cache_free(p, old_n);
  return q;
}

}  // namespace

void install_mpfr_block_cache() { mp_set_memory_functions(cache_alloc, cache_realloc, cache_free); }

std::size_t mpfr_block_cache_blocks() {
  std::size_t blocks = 0;
  for (std::size_t c = 0; c < kClasses; ++c) blocks += t_lists.count[c];
  return blocks;
}

}  // namespace rbd
