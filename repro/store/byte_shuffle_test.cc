#include "repro/store/byte_shuffle.h"

#include <gtest/gtest.h>

#include <string>

namespace rk::repro {
namespace {

TEST(ByteShuffleTest, GathersBytePlanes) {
  // Three 4-byte elements and two trailing bytes.
  std::string in = "ABCDabcd0123xy";
  std::string out(in.size(), '?');
  ShuffleBlock(in.data(), out.data(), in.size(), 4);
  EXPECT_EQ(out, "Aa0Bb1Cc2Dd3xy");
  std::string back(in.size(), '?');
  UnshuffleBlock(out.data(), back.data(), out.size(), 4);
  EXPECT_EQ(back, in);
}

TEST(ByteShuffleTest, BlocksRoundTripForEveryElementSize) {
  for (size_t element_size : {1, 2, 3, 4, 8, 16}) {
    size_t size = 3 * ShuffleBlockBytes(element_size) + 7;
    std::string in(size, '\0');
    for (size_t i = 0; i < size; ++i) in[i] = static_cast<char>(i * 131 + i / 7);
    std::string shuffled(size, '\0'), back(size, '\0');
    ShuffleBlocks(in.data(), shuffled.data(), size, element_size);
    if (element_size > 1) {
      EXPECT_NE(shuffled, in) << element_size;
    }
    UnshuffleBlocks(shuffled.data(), back.data(), size, element_size);
    EXPECT_EQ(back, in) << element_size;
  }
}

TEST(ByteShuffleTest, BlockSizeIsWholeElements) {
  EXPECT_EQ(ShuffleBlockBytes(4), kShuffleTargetBlock);
  EXPECT_EQ(ShuffleBlockBytes(3) % 3, 0u);
  EXPECT_LE(ShuffleBlockBytes(3), kShuffleTargetBlock);
}

}  // namespace
}  // namespace rk::repro
