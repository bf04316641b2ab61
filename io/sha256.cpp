// SHA-256 through OpenSSL: sha256_hex and the incremental Sha256 of sha256.hpp.
#include "io/sha256.hpp"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstdio>
#include <stdexcept>

namespace rbd {

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), md);
  char out[2 * SHA256_DIGEST_LENGTH + 1];
  for (int i = 0; i < SHA256_DIGEST_LENGTH; ++i) std::snprintf(out + 2 * i, 3, "%02x", md[i]);
  return std::string(out, 2 * SHA256_DIGEST_LENGTH);
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot start SHA-256");
}
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(const std::string& bytes) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size()) != 1)
    throw std::runtime_error("OpenSSL: SHA-256 update failed");
}
std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len) != 1) throw std::runtime_error("OpenSSL: SHA-256 failed");
  char out[2 * EVP_MAX_MD_SIZE + 1];
  for (unsigned int i = 0; i < len; ++i) std::snprintf(out + 2 * i, 3, "%02x", md[i]);
  return std::string(out, 2 * len);
}

}  // namespace rbd
