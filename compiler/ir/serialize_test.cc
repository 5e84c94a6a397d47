#include "compiler/ir/serialize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/printer.h"
#include "compiler/ir/random_graph_testutil.h"

namespace rk::compiler {
namespace {

using ::testing::HasSubstr;

TEST(SerializeTest, RoundTripsRandomGraphs) {
  int graphs = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    Graph g = RandomGraph(seed);
    if (g.num_nodes() == 0) continue;
    ++graphs;
    std::string bytes = SerializeGraph(g);
    EXPECT_EQ(bytes.substr(0, 4), "RKG1");
    absl::StatusOr<Graph> back = DeserializeGraph(bytes);
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.status();
    EXPECT_TRUE(*back == g) << "seed " << seed << "\n" << PrintInline(g);
    EXPECT_EQ(SerializeGraph(*back), bytes);
  }
  EXPECT_GE(graphs, 80);
}

TEST(SerializeTest, RejectsMissingMagic) {
  EXPECT_THAT(DeserializeGraph("").status().message(), HasSubstr("RKG1"));
  EXPECT_THAT(DeserializeGraph("RKG2abcdef").status().message(), HasSubstr("RKG1"));
}

TEST(SerializeTest, RejectsOtherVersions) {
  std::string bytes = SerializeGraph(RandomGraph(3));
  // After the magic comes cereal's endianness byte, then the version.
  bytes[5] = static_cast<char>(kGraphFormatVersion + 1);
  absl::StatusOr<Graph> g = DeserializeGraph(bytes);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("unsupported graph format version 2"));
}

TEST(SerializeTest, RejectsEveryTruncation) {
  std::string bytes = SerializeGraph(RandomGraph(11));
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<Graph> g = DeserializeGraph(bytes.substr(0, n));
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << "length " << n;
  }
  EXPECT_THAT(DeserializeGraph(bytes + "x").status().message(), HasSubstr("trailing"));
}

TEST(SerializeTest, CorruptBytesGiveErrorsNotCrashes) {
  std::mt19937_64 rng(1);
  int rejected = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::string bytes = SerializeGraph(RandomGraph(seed));
    for (int k = 0; k < 100; ++k) {
      std::string corrupt = bytes;
      for (int j = 0; j < 1 + static_cast<int>(rng() % 4); ++j) {
        corrupt[4 + rng() % (corrupt.size() - 4)] = static_cast<char>(rng());
      }
      absl::StatusOr<Graph> g = DeserializeGraph(corrupt);
      if (!g.ok()) {
        ++rejected;
        EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
      }
    }
  }
  EXPECT_GT(rejected, 500);
}

TEST(SerializeTest, HugeCountsAreRejectedBeforeAllocating) {
  std::string bytes = SerializeGraph(RandomGraph(5));
  // The graph name's length follows the version: claim 2^62 bytes.
  for (int i = 9; i < 17; ++i) bytes[i] = static_cast<char>(0x3f);
  absl::StatusOr<Graph> g = DeserializeGraph(bytes);
  EXPECT_THAT(g.status().message(), HasSubstr("exceeds the data"));
}

}  // namespace
}  // namespace rk::compiler
