// gzip (RFC 1952) in memory: the block-parallel compressor's layout, gzip_compress, gunzip and
// the magic-byte test.
#pragma once

#include "io/input_error.hpp"

#include <cstddef>
#include <istream>
#include <memory>
#include <string>

namespace rbd {

// gzip (RFC 1952) of `data`, and the way back. read_json_file reads a gzip
// file transparently (recognized by its magic bytes 1f 8b, whatever the name), inflating it as it
// parses (GunzipReader); gunzip refuses a truncated or damaged stream, data after it, and more
// content than the input bound (InputError naming path).
// The writer cuts its input into blocks deflated on `threads` threads (0: the machine's hardware
// threads), at zlib level 6 for the first `fast_after` bytes and level 1 beyond (gzip.cpp,
// GzipStreambuf); the defaults are what every writer uses, the fields are for tests.
struct GzipLayout {
  size_t block = size_t(1) << 20;
  size_t fast_after = size_t(64) << 20;
  int threads = 0;
};
std::string gzip_compress(const std::string& data, const GzipLayout& layout = {});
// The whole inflated text, for readers that need it whole (a model: its hash, the XML reader);
// refused (InputError naming path) once the inflated text passes max_input_bytes(kind_bound).
std::string gunzip(const std::string& data, const std::string& path, std::size_t kind_bound = std::size_t(1) << 30);
bool is_gzip(const std::string& data);

// A gzip stream inflated as it is read, for readers that parse as they read (read_json_file):
// the compressed bytes come from `in` 64 KiB at a time and read() gives the next inflated bytes,
// so that what is held is two 64 KiB buffers and zlib's window, never the inflated text.
// InputError naming path, as gunzip: "gzip content larger than the input limit" as soon as more
// than max_input_bytes(kind_bound) bytes have come out, "expected a complete gzip file" when the
// stream is damaged, ends before its end (truncated) or is followed by more data, "read error".
class GunzipReader {
 public:
  GunzipReader(std::istream& in, const std::string& path, std::size_t kind_bound);
  // The compressed bytes in memory (not copied: `data` outlives the reader).
  GunzipReader(const std::string& data, const std::string& path, std::size_t kind_bound);
  ~GunzipReader();
  GunzipReader(const GunzipReader&) = delete;
  GunzipReader& operator=(const GunzipReader&) = delete;
  // Up to n inflated bytes into out; 0 only at the end of a complete stream with nothing after it.
  std::size_t read(char* out, std::size_t n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rbd
