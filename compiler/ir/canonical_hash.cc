#include "compiler/ir/canonical_hash.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

#include "compiler/ir/printer.h"

namespace rk::compiler {

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // Only fails on allocation failure inside OpenSSL, where continuing would
  // hand out a wrong content address.
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    std::fputs("reprokit: internal error: EVP_Digest(sha256) failed\n", stderr);
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

std::string CanonicalHash(const Graph& graph) { return Sha256Hex(PrintCanonical(graph)); }

}  // namespace rk::compiler
