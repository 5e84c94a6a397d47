// Every op of compiler/ir/ops.def has every piece an op needs (docs/COMPILER.md,
// "Adding an op"): one test per op, generated from the op table itself, so a
// new line in ops.def fails here until its sample graph, shape inference,
// reference, CPU and GPU lowering, generator support and minifier rule (or a
// documented exemption) exist. The self-tests hand the checks deliberately
// incomplete tables and hooks to show that each kind of gap fails.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/op.h"
#include "gtest/gtest.h"
#include "testing/op_coverage_test_util.h"

namespace rk::op_coverage {
namespace {

using compiler::Op;

class OpCoverageTest : public ::testing::TestWithParam<Op> {};

TEST_P(OpCoverageTest, HasEveryPiece) {
  for (const std::string& problem : CheckOp(GetParam(), RealTables())) ADD_FAILURE() << problem;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpCoverageTest, ::testing::ValuesIn(compiler::kAllOps),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(compiler::OpName(info.param));
                         });

TEST(OpCoverageTables, AreConsistent) {
  for (const std::string& problem : CheckTables(RealTables())) ADD_FAILURE() << problem;
}

// One line of `problems` contains `what`.
bool Mentions(const std::vector<std::string>& problems, const std::string& what) {
  for (const std::string& p : problems) {
    if (absl::StrContains(p, what)) return true;
  }
  return false;
}

TEST(OpCoverageSelfTest, AnOpWithoutASampleFails) {
  CoverageTables tables = RealTables();
  std::erase_if(tables.samples, [](const OpSample& s) { return s.op == "erf"; });
  const std::vector<std::string> problems = CheckOp(Op::kErf, tables);
  EXPECT_TRUE(Mentions(problems, "erf: no sample graph")) << absl::StrJoin(problems, "\n");
}

TEST(OpCoverageSelfTest, ASampleWithoutItsOpFails) {
  CoverageTables tables = RealTables();
  for (OpSample& s : tables.samples) {
    if (s.op == "exp") s.text = "graph @g(%x: f32[2]) {\n  %y = log(%x) : f32[2]\n  return %y\n}";
  }
  EXPECT_TRUE(Mentions(CheckOp(Op::kExp, tables), "sample graph has no exp node"));
}

TEST(OpCoverageSelfTest, ASampleShapeInferenceRejectsFails) {
  CoverageTables tables = RealTables();
  for (OpSample& s : tables.samples) {
    if (s.op == "exp") s.text = "graph @g(%x: f32[2]) {\n  %y = exp(%x) : f32[3]\n  return %y\n}";
  }
  EXPECT_TRUE(Mentions(CheckOp(Op::kExp, tables), "exp: missing shape inference"));
}

TEST(OpCoverageSelfTest, AnOpTheGeneratorCannotEmitFails) {
  CoverageTables tables = RealTables();
  // A generator that has no builder for anything but neg.
  tables.generate = [](uint64_t seed, compiler::generator::GeneratorOptions options) {
    options.ops = {Op::kNeg};
    return compiler::generator::Generate(seed, options);
  };
  const std::vector<std::string> problems = CheckOp(Op::kExp, tables);
  EXPECT_TRUE(Mentions(problems, "exp: missing fuzz generator")) << absl::StrJoin(problems, "\n");
  EXPECT_EQ(problems.size(), 1u) << absl::StrJoin(problems, "\n");
}

TEST(OpCoverageSelfTest, AnOpWithoutASimplificationFails) {
  CoverageTables tables = RealTables();
  tables.simplifications = [](Op) { return std::vector<minifier::OpSimplification>{}; };
  const std::vector<std::string> problems = CheckOp(Op::kExp, tables);
  EXPECT_TRUE(Mentions(problems, "exp: missing minifier simplification"))
      << absl::StrJoin(problems, "\n");
  EXPECT_EQ(problems.size(), 1u) << absl::StrJoin(problems, "\n");
}

TEST(OpCoverageSelfTest, AStaleExemptionFails) {
  CoverageTables tables = RealTables();
  tables.exemptions.push_back({Op::kExp, Piece::kCpu, "pretend exp had no CPU lowering"});
  EXPECT_TRUE(Mentions(CheckOp(Op::kExp, tables), "exp: stale exemption from CPU lowering"));
  // And without its exemption, a composite's removal by decompose is a gap.
  std::erase_if(tables.exemptions, [](const Exemption& e) {
    return e.op == Op::kSoftmax && e.piece == Piece::kReachesKernels;
  });
  EXPECT_TRUE(Mentions(CheckOp(Op::kSoftmax, tables),
                       "softmax: missing survives the graph pipeline"));
}

TEST(OpCoverageSelfTest, BadTablesFail) {
  CoverageTables tables = RealTables();
  tables.samples.push_back({"expp", "graph @g() {\n}"});
  tables.samples.push_back(tables.samples.front());
  tables.exemptions.push_back({Op::kExp, Piece::kGpu, ""});
  const std::vector<std::string> problems = CheckTables(tables);
  EXPECT_TRUE(Mentions(problems, "sample for unknown op 'expp'"));
  EXPECT_TRUE(Mentions(problems, "two samples for input"));
  EXPECT_TRUE(Mentions(problems, "without a reason"));
}

}  // namespace
}  // namespace rk::op_coverage
