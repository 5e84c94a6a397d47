#include "base/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace rk {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256("").Hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256("abc").Hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").Hex(),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, IncrementalMatchesOneShotAndResets) {
  std::string million(1000000, 'a');
  Sha256Hasher hasher;
  for (size_t i = 0; i < million.size(); i += 999) {
    hasher.Update(absl::string_view(million).substr(i, 999));
  }
  Digest incremental = hasher.Finish();
  EXPECT_EQ(incremental.Hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(incremental, Sha256(million));
  hasher.Update("abc");
  EXPECT_EQ(hasher.Finish(), Sha256("abc"));
}

}  // namespace
}  // namespace rk
