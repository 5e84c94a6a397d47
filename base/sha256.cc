#include "base/sha256.h"

#include <openssl/evp.h>

#include <array>

#include "absl/base/internal/raw_logging.h"

namespace rk {
namespace {

const EVP_MD* Sha256Md() {
  // Leaked on purpose: lives for the process, shared by every hasher.
  static const EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md != nullptr ? md : EVP_sha256();
}

void InitOrDie(EVP_MD_CTX* ctx) {
  // Failure here means OpenSSL cannot provide SHA-256 at all; no caller could
  // recover, and continuing would store blobs under wrong addresses.
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, Sha256Md(), nullptr) != 1) {
    ABSL_RAW_LOG(FATAL, "OpenSSL: cannot initialise SHA-256");
  }
}

}  // namespace

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) { InitOrDie(ctx_); }

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(ctx_); }

void Sha256Hasher::Update(const void* data, size_t size) {
  if (size == 0) return;
  if (EVP_DigestUpdate(ctx_, data, size) != 1) {
    ABSL_RAW_LOG(FATAL, "OpenSSL: SHA-256 update failed");
  }
}

void Sha256Hasher::Update(absl::string_view bytes) { Update(bytes.data(), bytes.size()); }

Digest Sha256Hasher::Finish() {
  std::array<uint8_t, Digest::kBytes> out;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &length) != 1 || length != out.size()) {
    ABSL_RAW_LOG(FATAL, "OpenSSL: SHA-256 final failed");
  }
  InitOrDie(ctx_);
  return Digest(out);
}

Digest Sha256(absl::string_view bytes) {
  Sha256Hasher hasher;
  hasher.Update(bytes);
  return hasher.Finish();
}

std::string Sha256Hex(std::string_view bytes) {
  return Sha256(absl::string_view(bytes.data(), bytes.size())).Hex();
}

}  // namespace rk
