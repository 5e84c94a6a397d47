// SHA-256 through OpenSSL's EVP interface, one-shot or incremental.
//
// The incremental hasher lets the store hash a blob while it streams through
// compression, so a large tensor is read once. Uses the EVP_MD fetched once
// per process (OpenSSL 3 would otherwise look it up on every Init).
//
// Tested by base/sha256_test.cc (FIPS 180-2 vectors).
#ifndef REPROKIT_BASE_SHA256_H_
#define REPROKIT_BASE_SHA256_H_

#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "base/digest.h"

struct evp_md_ctx_st;

namespace rk {

class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(absl::string_view bytes);
  void Update(const void* data, size_t size);
  // Returns the digest of everything passed to Update and resets the hasher.
  Digest Finish();

 private:
  evp_md_ctx_st* ctx_;
};

Digest Sha256(absl::string_view bytes);
// Sha256(bytes).Hex(): 64 lowercase hex characters.
std::string Sha256Hex(std::string_view bytes);

}  // namespace rk

#endif  // REPROKIT_BASE_SHA256_H_
