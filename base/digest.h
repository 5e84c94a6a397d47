// A content address: the SHA-256 of a blob's raw bytes (the digest Bazel's
// CAS uses), held as 32 bytes and written as 64 lowercase hex characters.
//
// Parsing validates length and alphabet and accepts upper case; printing is
// always lowercase, so the hex form is canonical and usable as a file name.
// Ordering is byte order, which equals the order of the hex strings.
//
// Tested by base/digest_test.cc.
#ifndef REPROKIT_BASE_DIGEST_H_
#define REPROKIT_BASE_DIGEST_H_

#include <array>
#include <compare>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rk {

class Digest {
 public:
  static constexpr int kBytes = 32;
  static constexpr int kHexChars = 2 * kBytes;

  // The all-zero digest; not the digest of any known blob.
  Digest() : bytes_{} {}
  explicit Digest(const std::array<uint8_t, kBytes>& bytes) : bytes_(bytes) {}

  // Parses 64 hex characters; anything else is InvalidArgument.
  static absl::StatusOr<Digest> FromHex(absl::string_view hex);
  // True when `text` is exactly 64 hex characters.
  static bool IsHex(absl::string_view text);

  std::string Hex() const;
  const std::array<uint8_t, kBytes>& bytes() const { return bytes_; }

  friend bool operator==(const Digest&, const Digest&) = default;
  friend std::strong_ordering operator<=>(const Digest&, const Digest&) = default;

  template <typename H>
  friend H AbslHashValue(H h, const Digest& d) {
    return H::combine_contiguous(std::move(h), d.bytes_.data(), d.bytes_.size());
  }

 private:
  std::array<uint8_t, kBytes> bytes_;
};

}  // namespace rk

#endif  // REPROKIT_BASE_DIGEST_H_
