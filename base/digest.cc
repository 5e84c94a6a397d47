#include "base/digest.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rk {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool Digest::IsHex(absl::string_view text) {
  if (text.size() != kHexChars) return false;
  for (char c : text) {
    if (HexValue(c) < 0) return false;
  }
  return true;
}

absl::StatusOr<Digest> Digest::FromHex(absl::string_view hex) {
  if (hex.size() != kHexChars) {
    return absl::InvalidArgumentError(absl::StrCat("digest '", hex, "' has ", hex.size(),
                                                   " characters, want ", kHexChars));
  }
  std::array<uint8_t, kBytes> bytes;
  for (int i = 0; i < kBytes; ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("digest '", hex, "' has a non-hex character at offset ", hi < 0 ? 2 * i : 2 * i + 1));
    }
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return Digest(bytes);
}

std::string Digest::Hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(kHexChars, '0');
  for (int i = 0; i < kBytes; ++i) {
    hex[2 * i] = kDigits[bytes_[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes_[i] & 0xf];
  }
  return hex;
}

}  // namespace rk
