// GzipStreambuf, the block-parallel gzip writer behind gzip_compress and write_file_atomic's
// gzip output; private to io/ (it brings in zlib).
#pragma once

#include "io/gzip.hpp"

#include <zlib.h>

#include <cstdint>
#include <deque>
#include <exception>
#include <future>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace rbd::io_detail {

// One block of a gzip stream (GzipStreambuf): the raw deflate of `in` (no zlib or gzip wrapper),
// primed with `dict` (the 32 KiB of input before the block, which the inflater has in its window
// when it reaches the block), ended by a sync flush (an empty stored block: the next block starts
// on a byte boundary) or, for the last, by the final block. Its CRC-32 goes into the trailer.
struct DeflatedBlock {
  std::string out;
  uLong crc = 0;
  size_t size = 0;
};

// An output stream buffer that gzip-compresses what it is given into another stream, in blocks on
// several threads (as pigz does): one gzip member (RFC 1952: header, one deflate stream, CRC-32 and
// length), which gzip(1), zcat and gunzip read like any other. The input is cut into blocks of
// `layout.block` bytes; each block is deflated on its own thread, primed with the 32 KiB before it
// (so the ratio is that of one stream within ~0.1 %), and the blocks are written in order as they
// finish, at most 2 per thread in flight. The bytes depend on the text and the layout only, never on
// the thread count or the timing. Level: zlib's default (6) for the first `layout.fast_after`
// bytes, level 1 beyond: on fixture text (decimal digits) level 1 is several times faster and a
// little larger (docs/benchmarks.md, "Fixture throughput and size");
// every fixture of a hand-sized model (1000 humanoid samples: 55 MB) stays at level 6, and the
// large models' fixtures (300 MB of text per sample of a 2000-body chain) are not bound by
// compression (docs/benchmarks.md, "Sixth pass").
class GzipStreambuf : public std::streambuf {
 public:
  GzipStreambuf(std::ostream& sink, const GzipLayout& layout);
  ~GzipStreambuf() override;
  GzipStreambuf(const GzipStreambuf&) = delete;
  GzipStreambuf& operator=(const GzipStreambuf&) = delete;
  // Compresses what is buffered, writes every block and ends the gzip member.
  void finish();

 protected:
  int_type overflow(int_type c) override;

 private:
  void submit(bool last);
  void write_front();
  static constexpr size_t kWindow = 32768;
  std::ostream& sink_;
  GzipLayout layout_;
  int threads_ = 1;
  std::vector<char> in_;
  std::string window_;
  std::deque<std::future<DeflatedBlock>> pending_;
  std::exception_ptr failed_;
  size_t consumed_ = 0;
  uLong crc_ = crc32(0L, Z_NULL, 0);
  std::uint64_t total_ = 0;
};

}  // namespace rbd::io_detail
