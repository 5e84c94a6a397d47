// The IR's round trips hold on random graphs: the text format (inline and
// through a blob store), binary serialization and the canonical hash, on
// generator graphs with corner-value literals, quoted names and odd
// signatures (GeneratorOptions::ir_corner_cases); and the parser and the
// deserializer answer truncated, mutated or corrupt input with errors, not
// crashes. The hand-written cases stay beside the code in compiler/ir.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "base/sha256.h"
#include "compiler/generator/generator.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/serialize.h"

namespace rk::compiler::generator {
namespace {

using ::testing::HasSubstr;

Graph CornerGraph(uint64_t seed) {
  GeneratorOptions options;
  options.nodes = 14;
  options.ir_corner_cases = true;
  absl::StatusOr<GeneratedGraph> g = Generate(seed, options);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? g->graph : Graph();
}

// Stores blobs in memory, keyed by digest.
class MemoryStore : public BlobSink, public BlobResolver {
 public:
  absl::StatusOr<std::string> Put(const HostTensor& tensor) override {
    auto bytes = tensor.bytes();
    std::string digest =
        Sha256Hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    blobs_[digest] = tensor;
    return digest;
  }
  absl::StatusOr<HostTensor> Get(const std::string& digest, const TensorType& type) override {
    auto it = blobs_.find(digest);
    if (it == blobs_.end()) return absl::NotFoundError("no such blob");
    return HostTensor::FromBytes(type, it->second.bytes());
  }

 private:
  std::map<std::string, HostTensor> blobs_;
};

TEST(IrRoundTripTest, TextRoundTripsExactly) {
  std::set<Op> ops;
  std::set<DType> dtypes;
  for (uint64_t seed = 0; seed < 260; ++seed) {
    Graph g = CornerGraph(seed);
    ASSERT_GT(g.num_nodes(), 0) << "seed " << seed;
    for (const Node& n : g.nodes()) {
      ops.insert(n.op);
      dtypes.insert(n.type.dtype);
    }
    std::string text = PrintInline(g);
    absl::StatusOr<Graph> parsed = Parse(text);
    ASSERT_TRUE(parsed.ok()) << "seed " << seed << ": " << parsed.status() << "\n" << text;
    EXPECT_TRUE(*parsed == g) << "seed " << seed << "\n" << text << "\n" << PrintInline(*parsed);
    EXPECT_EQ(PrintInline(*parsed), text) << "seed " << seed;
    EXPECT_EQ(CanonicalHash(*parsed), CanonicalHash(g));

    // Through the blob store, with every constant of more than 2 elements external.
    MemoryStore store;
    PrintOptions options{.inline_limit = 2, .sink = &store};
    absl::StatusOr<std::string> with_blobs = Print(g, options);
    ASSERT_TRUE(with_blobs.ok()) << with_blobs.status();
    absl::StatusOr<Graph> reparsed = Parse(*with_blobs, {.resolver = &store});
    ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << *with_blobs;
    EXPECT_TRUE(*reparsed == g) << "seed " << seed;
  }
  EXPECT_EQ(ops.size(), std::size(kAllOps)) << "the random graphs should cover every op";
  EXPECT_EQ(dtypes.size(), std::size(kAllDTypes));
}

TEST(IrRoundTripTest, MutatedTextGivesErrorsNotCrashes) {
  std::mt19937_64 rng(7);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::string text = PrintInline(CornerGraph(seed));
    for (size_t cut = 0; cut < text.size(); cut += 1 + text.size() / 40) {
      (void)Parse(text.substr(0, cut));
    }
    for (int k = 0; k < 40; ++k) {
      std::string mutated = text;
      for (int j = 0; j < 3; ++j) mutated[rng() % mutated.size()] = static_cast<char>(rng());
      (void)Parse(mutated);
    }
  }
}

TEST(IrRoundTripTest, SerializationRoundTrips) {
  for (uint64_t seed = 0; seed < 100; ++seed) {
    Graph g = CornerGraph(seed);
    ASSERT_GT(g.num_nodes(), 0) << "seed " << seed;
    std::string bytes = SerializeGraph(g);
    EXPECT_EQ(bytes.substr(0, 4), "RKG1");
    absl::StatusOr<Graph> back = DeserializeGraph(bytes);
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.status();
    EXPECT_TRUE(*back == g) << "seed " << seed << "\n" << PrintInline(g);
    EXPECT_EQ(SerializeGraph(*back), bytes);
  }
}

TEST(IrRoundTripTest, DeserializeRejectsEveryTruncation) {
  std::string bytes = SerializeGraph(CornerGraph(11));
  for (size_t n = 0; n < bytes.size(); ++n) {
    absl::StatusOr<Graph> g = DeserializeGraph(bytes.substr(0, n));
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << "length " << n;
  }
  EXPECT_THAT(DeserializeGraph(bytes + "x").status().message(), HasSubstr("trailing"));
}

TEST(IrRoundTripTest, CorruptBytesGiveErrorsNotCrashes) {
  std::mt19937_64 rng(1);
  int rejected = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::string bytes = SerializeGraph(CornerGraph(seed));
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

TEST(IrRoundTripTest, CanonicalHashIgnoresNames) {
  for (uint64_t seed = 0; seed < 30; ++seed) {
    Graph g = CornerGraph(seed);
    ASSERT_GT(g.num_nodes(), 0) << "seed " << seed;
    Graph renamed = g;
    renamed.set_name("renamed");
    for (int i = 0; i < renamed.num_nodes(); ++i) {
      renamed.mutable_node(NodeId(i)).name = "n" + std::to_string(i * 7);
    }
    EXPECT_EQ(CanonicalHash(g), CanonicalHash(renamed)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace rk::compiler::generator
