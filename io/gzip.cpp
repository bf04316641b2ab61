// gzip: the block-parallel writer GzipStreambuf (gzip_streambuf.hpp), gzip_compress, is_gzip and
// gunzip (gzip.hpp).
#include "io/gzip.hpp"
#include "io/files.hpp"

#include "io/gzip_streambuf.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

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

namespace {

// Bytes in memory as a stream buffer, not copied.
struct ViewBuf : std::streambuf {
  explicit ViewBuf(const std::string& s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
};

}  // namespace

struct GunzipReader::Impl {
  std::unique_ptr<ViewBuf> view;  // the bytes in memory, when they are
  std::unique_ptr<std::istream> view_in;
  std::istream& in;
  std::string path;
  std::size_t limit;         // max_input_bytes(kind_bound): inflated bytes beyond it are refused
  std::uint64_t inflated = 0;
  z_stream z{};
  std::vector<char> buf = std::vector<char>(std::size_t(1) << 16);  // compressed bytes, read as needed
  bool in_ended = false, done = false;

  Impl(std::istream& i, const std::string& p, std::size_t kind_bound) : in(i), path(p), limit(max_input_bytes(kind_bound)) {
    if (inflateInit2(&z, 15 + 16) != Z_OK) throw InputError(path, "", "cannot start gzip decompression (zlib)");
  }
  ~Impl() { inflateEnd(&z); }
  [[noreturn]] void incomplete() const {
    throw InputError(path, "", "expected a complete gzip file (truncated, damaged, or with data after the gzip stream)");
  }
  // More compressed bytes into buf (z.avail_in is 0); false at the end of `in`.
  bool refill() {
    if (in_ended) return false;
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw InputError(path, "", "read error");
    z.next_in = reinterpret_cast<Bytef*>(buf.data());
    z.avail_in = static_cast<uInt>(got);
    in_ended = got == 0;
    return got > 0;
  }
};

GunzipReader::GunzipReader(std::istream& in, const std::string& path, std::size_t kind_bound)
    : impl_(std::make_unique<Impl>(in, path, kind_bound)) {}
GunzipReader::GunzipReader(const std::string& data, const std::string& path, std::size_t kind_bound) {
  auto view = std::make_unique<ViewBuf>(data);
  auto in = std::make_unique<std::istream>(view.get());
  impl_ = std::make_unique<Impl>(*in, path, kind_bound);
  impl_->view = std::move(view);
  impl_->view_in = std::move(in);
}
GunzipReader::~GunzipReader() = default;

std::size_t GunzipReader::read(char* out, std::size_t n) {
  Impl& d = *impl_;
  if (d.done || n == 0) return 0;
  z_stream& z = d.z;
  for (;;) {
    if (z.avail_in == 0) d.refill();
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(n, std::size_t(1) << 30));
    const uInt before = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = before - z.avail_out;
    d.inflated += got;
    if (d.inflated > d.limit)  // a bomb is refused as it inflates, not after
      throw InputError(d.path, "", "gzip content larger than the input limit of " + std::to_string(d.limit) +
                                       " bytes: refused (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
    if (rc == Z_STREAM_END) {
      if (z.avail_in != 0 || d.refill()) d.incomplete();  // data after the gzip stream
      d.done = true;
      return got;
    }
    // No progress possible: the input ended before the stream did (truncated), or damaged data.
    if (rc == Z_BUF_ERROR ? z.avail_in != 0 || d.in_ended : rc != Z_OK) d.incomplete();
    if (got > 0) return got;
  }
}

std::string gunzip(const std::string& data, const std::string& path, std::size_t kind_bound) {
  GunzipReader reader(data, path, kind_bound);
  std::string out;
  char buf[1 << 16];
  while (const std::size_t got = reader.read(buf, sizeof buf)) out.append(buf, got);
  return out;
}

}  // namespace rbd
