#include "repro/oracle/failure_site.h"

#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

compiler::CompileOptions WithFaults(std::vector<std::string> faults) {
  compiler::CompileOptions o;
  o.faults = std::move(faults);
  return o;
}

compiler::Graph MustParse(const char* text) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : compiler::Graph();
}

// A relu feeding an add (output 1) beside an unrelated exp (output 0).
constexpr char kReluIntoAdd[] = R"(graph @g(%x: f32[4], %y: f32[4]) {
  %e = exp(%y) : f32[4]
  %r = relu(%x) : f32[4]
  %s = add(%r, %y) : f32[4]
  return %e, %s
})";

TEST(FailureSiteTest, PlantedFaultUpstreamNamesItsOp) {
  compiler::Graph g = MustParse(kReluIntoAdd);
  FailureSite site = LocateAccuracyFailure(g, WithFaults({"relu:accuracy"}), {1});
  EXPECT_EQ(site.op, "relu");
  EXPECT_EQ(site.dtype, "f32");
  EXPECT_EQ(site.output, 1);
  EXPECT_TRUE(site.planted);
}

// The built-in compiler served as an external backend takes its faults as
// backend options; the same compiler names the same op either way.
TEST(FailureSiteTest, ExternalBackendsFaultsOptionCounts) {
  compiler::Graph g = MustParse(kReluIntoAdd);
  compiler::CompileOptions external;
  external.backend = "/some/backend";
  external.backend_options = {"faults:relu:accuracy"};
  FailureSite site = LocateAccuracyFailure(g, external, {1});
  EXPECT_EQ(site.op, "relu");
  EXPECT_TRUE(site.planted);
  external.backend_options = {"mode:fast"};
  EXPECT_EQ(LocateAccuracyFailure(g, external, {1}).op, "add");
}

TEST(FailureSiteTest, WithoutAPlantedFaultTheFailingOutputNamesIt) {
  compiler::Graph g = MustParse(kReluIntoAdd);
  FailureSite site = LocateAccuracyFailure(g, {}, {1});
  EXPECT_EQ(site.op, "add");
  EXPECT_EQ(site.output, 1);
  EXPECT_FALSE(site.planted);
  // A fault on an op that is not above the failing output does not name it.
  site = LocateAccuracyFailure(g, WithFaults({"exp:accuracy"}), {1});
  EXPECT_EQ(site.op, "add");
  EXPECT_FALSE(site.planted);
}

TEST(FailureSiteTest, EarliestFailingOutputWhateverTheOutputOrder) {
  compiler::Graph g = MustParse(R"(graph @g(%x: f32[4]) {
  %a = exp(%x) : f32[4]
  %b = neg(%a) : f32[4]
  %c = cast(%b) {dtype=bf16} : bf16[4]
  return %c, %a
})");
  FailureSite site = LocateAccuracyFailure(g, {}, {0, 1});
  EXPECT_EQ(site.op, "exp");
  EXPECT_EQ(site.output, 1);
}

TEST(FailureSiteTest, FaultInsideACompositeNamesThePrimitive) {
  // softmax lowers to reduce_max, sub, exp, reduce_sum and div; the
  // bf16 one computes in f32.
  compiler::Graph g = MustParse(R"(graph @g(%x: bf16[2,8]) {
  %p = softmax(%x) {axis=1} : bf16[2,8]
  %q = neg(%p) : bf16[2,8]
  return %q
})");
  FailureSite site = LocateAccuracyFailure(g, WithFaults({"sub:accuracy"}), {0});
  EXPECT_EQ(site.op, "sub");
  EXPECT_EQ(site.dtype, "f32");
  EXPECT_TRUE(site.planted);
}

TEST(FailureSiteTest, EarliestPlantedNodeWins) {
  compiler::Graph g = MustParse(R"(graph @g(%x: f32[4]) {
  %a = mul(%x, %x) : f32[4]
  %b = cast(%a) {dtype=bf16} : bf16[4]
  %c = mul(%b, %b) : bf16[4]
  return %c
})");
  FailureSite site = LocateAccuracyFailure(g, WithFaults({"mul:accuracy"}), {0});
  EXPECT_EQ(site.op, "mul");
  EXPECT_EQ(site.dtype, "f32");
  // drop_last is a value fault on reduce_sum too.
  g = MustParse(R"(graph @g(%x: f32[4,8]) {
  %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[4]
  %e = exp(%s) : f32[4]
  return %e
})");
  site = LocateAccuracyFailure(g, WithFaults({"reduce_sum:drop_last"}), {0});
  EXPECT_EQ(site.op, "reduce_sum");
  EXPECT_TRUE(site.planted);
  // fuse:wrong_index names no op: the failing output does.
  site = LocateAccuracyFailure(g, WithFaults({"fuse:wrong_index"}), {0});
  EXPECT_EQ(site.op, "exp");
  EXPECT_FALSE(site.planted);
}

TEST(FailureSiteTest, PlantedNondeterminismNamesItsOp) {
  compiler::Graph g = MustParse(kReluIntoAdd);
  FailureSite site = LocateNondeterminism(g, WithFaults({"relu:nondeterministic"}), {1});
  EXPECT_EQ(site.op, "relu");
  EXPECT_TRUE(site.planted);
  // A value fault does not explain outputs that differ between runs.
  site = LocateNondeterminism(g, WithFaults({"relu:accuracy"}), {1});
  EXPECT_EQ(site.op, "add");
  EXPECT_FALSE(site.planted);
}

TEST(FailureSiteTest, CanNameFailureLooksInsideComposites) {
  compiler::Graph g = MustParse(R"(graph @g(%x: f32[2,8]) {
  %p = softmax(%x) {axis=1} : f32[2,8]
  return %p
})");
  EXPECT_TRUE(CanNameFailure(g, "softmax", "f32"));
  EXPECT_TRUE(CanNameFailure(g, "sub", "f32"));
  EXPECT_FALSE(CanNameFailure(g, "sub", "bf16"));
  EXPECT_FALSE(CanNameFailure(g, "relu", "f32"));
}

}  // namespace
}  // namespace rk::repro
