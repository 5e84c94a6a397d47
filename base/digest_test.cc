#include "base/digest.h"

#include <gtest/gtest.h>

namespace rk {
namespace {

constexpr char kEmptySha[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(DigestTest, HexRoundTrips) {
  absl::StatusOr<Digest> d = Digest::FromHex(kEmptySha);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->Hex(), kEmptySha);
  EXPECT_EQ(d->bytes()[0], 0xe3);
  EXPECT_EQ(d->bytes()[31], 0x55);
}

TEST(DigestTest, UpperCaseParsesToCanonicalLowerCase) {
  std::string upper = kEmptySha;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  absl::StatusOr<Digest> d = Digest::FromHex(upper);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->Hex(), kEmptySha);
}

TEST(DigestTest, RejectsWrongLengthAndNonHex) {
  EXPECT_EQ(Digest::FromHex("abc").status().code(), absl::StatusCode::kInvalidArgument);
  std::string bad = kEmptySha;
  bad[10] = 'g';
  absl::Status s = Digest::FromHex(bad).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("offset 10"), std::string::npos) << s;
  EXPECT_FALSE(Digest::IsHex(bad));
  EXPECT_TRUE(Digest::IsHex(kEmptySha));
}

TEST(DigestTest, OrdersLikeHexStrings) {
  Digest a = *Digest::FromHex(std::string(63, '0') + "1");
  Digest b = *Digest::FromHex("1" + std::string(63, '0'));
  EXPECT_LT(a, b);
  EXPECT_LT(a.Hex(), b.Hex());
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace rk
