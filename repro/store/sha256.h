// SHA-256 through OpenSSL's EVP interface, one-shot or incremental.
//
// The incremental hasher lets the store hash a blob while it streams through
// compression, so a large tensor is read once. Uses the EVP_MD fetched once
// per process (OpenSSL 3 would otherwise look it up on every Init).
//
// Tested by repro/store/sha256_test.cc (FIPS 180-2 vectors).
#ifndef REPROKIT_REPRO_STORE_SHA256_H_
#define REPROKIT_REPRO_STORE_SHA256_H_

#include "absl/strings/string_view.h"
#include "repro/store/digest.h"

struct evp_md_ctx_st;

namespace rk::repro {

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

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_SHA256_H_
