// gzip (RFC 1952) in memory: the block-parallel compressor's layout, gzip_compress, gunzip and
// the magic-byte test.
#pragma once

#include "io/input_error.hpp"

#include <cstddef>
#include <string>

namespace rbd {

// gzip (RFC 1952) of `data`, and the way back. read_json_file reads a gzip
// file transparently (recognized by its magic bytes 1f 8b, whatever the name); gunzip refuses a
// truncated or damaged stream, data after it, and more than 8 GiB of content (InputError naming path).
// The writer cuts its input into blocks deflated on `threads` threads (0: the machine's hardware
// threads), at zlib level 6 for the first `fast_after` bytes and level 1 beyond (gzip.cpp,
// GzipStreambuf); the defaults are what every writer uses, the fields are for tests.
struct GzipLayout {
  size_t block = size_t(1) << 20;
  size_t fast_after = size_t(64) << 20;
  int threads = 0;
};
std::string gzip_compress(const std::string& data, const GzipLayout& layout = {});
// Refused (InputError naming path) once the inflated text passes max_input_bytes(kind_bound).
std::string gunzip(const std::string& data, const std::string& path, std::size_t kind_bound = std::size_t(1) << 30);
bool is_gzip(const std::string& data);

}  // namespace rbd
