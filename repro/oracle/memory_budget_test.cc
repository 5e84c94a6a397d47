#include "repro/oracle/memory_budget.h"

#include "compiler/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using ::testing::HasSubstr;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

compiler::Graph MustParse(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : compiler::Graph();
}

// The graph of the defect report: a 64 GiB input, accepted by the parser.
constexpr char kHuge[] = R"(graph @g(%x: f32[4,1024,1024,4096]) {
  %y = relu(%x) : f32[4,1024,1024,4096]
  return %y
})";

TEST(MemoryBudgetTest, EstimatesFromTypes) {
  compiler::Graph g = MustParse(R"(graph @g(%x: f32[1024]) {
  %y = relu(%x) : f32[1024]
  return %y
})");
  EXPECT_EQ(EstimateBytes(g, MemoryUse::kEvaluate), 2 * 4096.0);
  EXPECT_EQ(EstimateBytes(g, MemoryUse::kEvaluateFp64), 4096.0 + 2 * 8192.0);
  EXPECT_EQ(EstimateBytes(g, MemoryUse::kJudge), 2 * 8192.0 + 2 * 16384.0);
  EXPECT_TRUE(CheckMemoryBudget(g, MemoryUse::kJudge, kDefaultMemoryBudgetBytes).ok());
}

TEST(MemoryBudgetTest, HugeInputIsRefusedBeforeAllocating) {
  compiler::Graph g = MustParse(kHuge);
  EXPECT_EQ(EstimateBytes(g, MemoryUse::kEvaluate), 128 * kGiB);
  absl::Status s = CheckMemoryBudget(g, MemoryUse::kEvaluate, kDefaultMemoryBudgetBytes);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("needs 128.0 GiB, limit 8.0 GiB"));
  EXPECT_FALSE(CheckMemoryBudget(g, MemoryUse::kJudge, kDefaultMemoryBudgetBytes).ok());
  EXPECT_TRUE(CheckMemoryBudget(g, MemoryUse::kJudge, 0).ok()) << "0 means no limit";
}

TEST(MemoryBudgetTest, HugeFullIsRefusedToo) {
  compiler::Graph g = MustParse(R"(graph @g() {
  %y = full() {value=1.0, dtype=f32, shape=[4,1024,1024,4096]} : f32[4,1024,1024,4096]
  return %y
})");
  EXPECT_THAT(CheckMemoryBudget(g, MemoryUse::kRun, kDefaultMemoryBudgetBytes).message(),
              HasSubstr("needs 64.0 GiB"));
}

}  // namespace
}  // namespace rk::repro
