// SHA-256 in hex, of a byte string or of bytes given in pieces (model provenance, fixture hashes).
#pragma once

#include <string>

namespace rbd {

// Hex SHA-256 of a byte string (for model provenance in fixtures).
std::string sha256_hex(const std::string& bytes);
// The same, of bytes given in pieces (a document written as it is made): hex() equals sha256_hex
// of the pieces concatenated.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const std::string& bytes);
  std::string hex();  // ends the hash

 private:
  void* ctx_;  // EVP_MD_CTX
};

}  // namespace rbd
