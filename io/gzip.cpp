// gzip: the block-parallel writer GzipStreambuf (gzip_streambuf.hpp), gzip_compress, is_gzip and
// gunzip (gzip.hpp).
#include "io/gzip.hpp"
#include "io/files.hpp"

#include "io/gzip_streambuf.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace rbd {

namespace io_detail {

namespace {

DeflatedBlock deflate_block(const std::string& in, const std::string& dict, int level, bool last) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  struct End {
    z_stream& z;
    ~End() { deflateEnd(&z); }
  } end{zs};
  if (!dict.empty() &&
      deflateSetDictionary(&zs, reinterpret_cast<const Bytef*>(dict.data()), static_cast<uInt>(dict.size())) != Z_OK)
    throw std::runtime_error("zlib: deflateSetDictionary failed");
  DeflatedBlock b;
  b.size = in.size();
  b.crc = crc32(0L, reinterpret_cast<const Bytef*>(in.data()), static_cast<uInt>(in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  const int flush = last ? Z_FINISH : Z_SYNC_FLUSH;
  b.out.resize(deflateBound(&zs, static_cast<uLong>(in.size())) + 64);
  size_t have = 0;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(&b.out[have]);
    zs.avail_out = static_cast<uInt>(b.out.size() - have);
    const int rc = deflate(&zs, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib: deflate failed");
    have = b.out.size() - zs.avail_out;
    const bool complete = last ? rc == Z_STREAM_END : zs.avail_in == 0 && zs.avail_out != 0;
    if (complete) break;
    b.out.resize(b.out.size() * 2);  // never with deflateBound's margin; kept for safety
  }
  b.out.resize(have);
  return b;
}

}  // namespace

GzipStreambuf::GzipStreambuf(std::ostream& sink, const GzipLayout& layout) : sink_(sink), layout_(layout) {
  if (layout_.block < 1024) throw std::logic_error("GzipStreambuf: blocks of at least 1 KiB");
  threads_ = std::max(1, layout_.threads > 0 ? layout_.threads : static_cast<int>(std::thread::hardware_concurrency()));
  in_.resize(layout_.block);
  setp(in_.data(), in_.data() + in_.size());
  static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};  // deflate, no name, no time, Unix
  sink_.write(reinterpret_cast<const char*>(header), sizeof header);
}

GzipStreambuf::~GzipStreambuf() {
  for (auto& f : pending_)
    if (f.valid()) f.wait();  // an abandoned stream (an exception): its blocks end before their data
}

void GzipStreambuf::finish() {
  if (failed_) std::rethrow_exception(failed_);  // a block that failed inside overflow (the ostream kept only badbit)
  submit(true);
  while (!pending_.empty()) write_front();
  unsigned char trailer[8];
  for (int k = 0; k < 4; ++k) {
    trailer[k] = static_cast<unsigned char>((crc_ >> (8 * k)) & 0xff);
    trailer[4 + k] = static_cast<unsigned char>((total_ >> (8 * k)) & 0xff);  // ISIZE: the length mod 2^32
  }
  sink_.write(reinterpret_cast<const char*>(trailer), sizeof trailer);
}

GzipStreambuf::int_type GzipStreambuf::overflow(int_type c) {
  submit(false);
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

void GzipStreambuf::submit(bool last) {
  std::string block(pbase(), static_cast<size_t>(pptr() - pbase()));
  if (block.empty() && !last) return;
  const int level = consumed_ < layout_.fast_after ? Z_DEFAULT_COMPRESSION : 1;
  std::string dict = window_;
  // The next block's dictionary: the last 32 KiB of input so far.
  window_ += block;
  if (window_.size() > kWindow) window_.erase(0, window_.size() - kWindow);
  consumed_ += block.size();
  while (pending_.size() >= static_cast<size_t>(2 * threads_)) write_front();
  if (threads_ == 1) {
    std::promise<DeflatedBlock> p;
    p.set_value(deflate_block(block, dict, level, last));
    pending_.push_back(p.get_future());
  } else {
    pending_.push_back(std::async(std::launch::async, [b = std::move(block), d = std::move(dict), level, last] {
      return deflate_block(b, d, level, last);
    }));
  }
  setp(in_.data(), in_.data() + in_.size());
}

void GzipStreambuf::write_front() {
  std::future<DeflatedBlock> f = std::move(pending_.front());
  pending_.pop_front();
  DeflatedBlock b;
  try {
    b = f.get();  // a zlib failure (or bad_alloc) on a worker is thrown here
  } catch (...) {
    failed_ = std::current_exception();
    throw;
  }
  sink_.write(b.out.data(), static_cast<std::streamsize>(b.out.size()));
  crc_ = crc32_combine(crc_, b.crc, static_cast<z_off_t>(b.size));
  total_ += b.size;
}

}  // namespace io_detail

std::string gzip_compress(const std::string& data, const GzipLayout& layout) {
  std::ostringstream out;
  io_detail::GzipStreambuf buf(out, layout);
  std::ostream z(&buf);
  z.write(data.data(), static_cast<std::streamsize>(data.size()));
  buf.finish();
  return out.str();
}

bool is_gzip(const std::string& data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string gunzip(const std::string& data, const std::string& path, std::size_t kind_bound) {
  const size_t kLimit = max_input_bytes(kind_bound);  // a bomb is refused as it inflates, not after
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw InputError(path, "", "cannot start gzip decompression (zlib)");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > kLimit) {
      inflateEnd(&z);
      throw InputError(path, "", "gzip content larger than the input limit of " + std::to_string(kLimit) +
                                     " bytes: refused (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // input ended before the stream did
  }
  const bool complete = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!complete)
    throw InputError(path, "", "expected a complete gzip file (truncated, damaged, or with data after the gzip stream)");
  return out;
}

}  // namespace rbd
