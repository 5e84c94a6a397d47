#include "minifier/rewrite.h"

#include "gtest/gtest.h"
#include "minifier/candidate.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

using compiler::NodeId;

constexpr char kGraph[] = R"(graph @g(%x: f32[4], %y: f32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%a) : f32[4]
  %c = add(%b, %y) : f32[4]
  return %c
})";

TEST(ApplyEdit, ForwardChainsResolveAndDeadCodeGoes) {
  Candidate c = ParseCandidate(kGraph);
  GraphEdit edit(c.graph);
  edit.Forward(NodeId(3), NodeId(2));
  edit.Forward(NodeId(4), NodeId(3));
  absl::StatusOr<Candidate> out = ApplyEdit(c, nullptr, edit);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(PrintCandidate(*out), R"(graph @g(%x: f32[4]) {
  %a = neg(%x) : f32[4]
  return %a
}
)");
}

// An input the edit leaves without a user goes in the same candidate (no
// later remove_unused_inputs call); one unused before the edit stays, for
// that reduction to judge.
TEST(ApplyEdit, InputsLeftUnreadGoAndInputsUnreadBeforeStay) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[4], %u: f32[2]) {
  %a = neg(%x) : f32[4]
  %c = add(%a, %y) : f32[4]
  return %c
})");
  GraphEdit edit(c.graph);
  edit.Forward(NodeId(4), NodeId(3));  // %c -> %a: %y loses its only user
  absl::StatusOr<Candidate> out = ApplyEdit(c, nullptr, edit);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(PrintCandidate(*out), R"(graph @g(%x: f32[4], %u: f32[2]) {
  %a = neg(%x) : f32[4]
  return %a
}
)");
  EXPECT_EQ(out->inputs.size(), 2u);
}

TEST(ApplyEdit, DroppingAnInputStillReadIsInvalid) {
  Candidate c = ParseCandidate(kGraph);
  GraphEdit edit(c.graph);
  edit.Drop(NodeId(1));
  EXPECT_EQ(ApplyEdit(c, nullptr, edit).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ApplyEdit, CutWithoutRecordedValuesIsAnInternalError) {
  Candidate c = ParseCandidate(kGraph);
  GraphEdit edit(c.graph);
  edit.ToInput(NodeId(2));
  EXPECT_EQ(ApplyEdit(c, nullptr, edit).status().code(), absl::StatusCode::kInternal);
}

TEST(ApplyEdit, GradMarksStayAndCutsOfDifferentiableValuesAreMarked) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4] grad, %y: f32[4], %i: i32[4]) {
  %a = neg(%x) : f32[4]
  %b = exp(%y) : f32[4]
  %f = cast(%i) {dtype=f32} : f32[4]
  %c = add(%a, %b) : f32[4]
  %d = mul(%c, %f) : f32[4]
  return %d
})");
  TestValues values = RecordTestValues(c);
  GraphEdit edit(c.graph);
  edit.ToInput(NodeId(3));  // %a = neg(%x): a gradient flows into it
  edit.ToInput(NodeId(4));  // %b = exp(%y): none does
  absl::StatusOr<Candidate> out = ApplyEdit(c, values.values.get(), edit);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(PrintCandidate(*out), R"(graph @g(%i: i32[4], %a: f32[4] grad, %b: f32[4]) {
  %f = cast(%i) {dtype=f32} : f32[4]
  %c = add(%a, %b) : f32[4]
  %d = mul(%c, %f) : f32[4]
  return %d
}
)");
}

TEST(RebuildOnInputs, KeepsGradMarksWhileTheInputStaysFloat) {
  Candidate c = ParseCandidate(R"(graph @g(%x: f32[4] grad) {
  %a = neg(%x) : f32[4]
  return %a
})");
  absl::StatusOr<Candidate> same = RebuildOnInputs(c, c.inputs);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_NE(PrintCandidate(*same).find("%x: f32[4] grad"), std::string::npos);
  absl::StatusOr<Candidate> half =
      RebuildOnInputs(c, {c.inputs[0].ConvertTo(compiler::DType::kF16)});
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_NE(PrintCandidate(*half).find("%x: f16[4] grad"), std::string::npos);
  absl::StatusOr<Candidate> integer =
      RebuildOnInputs(c, {c.inputs[0].ConvertTo(compiler::DType::kI32)});
  ASSERT_TRUE(integer.ok()) << integer.status();
  EXPECT_EQ(PrintCandidate(*integer).find("grad"), std::string::npos);
}

TEST(Score, OrdersByComputeNodesThenInputElements) {
  Candidate big = ParseCandidate(kGraph);
  Candidate small = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[4], %z: f32[4]) {
  %c = add(%x, %y) : f32[4]
  return %c
})");
  Candidate smaller = ParseCandidate(R"(graph @g(%x: f32[4], %y: f32[4]) {
  %c = add(%x, %y) : f32[4]
  return %c
})");
  EXPECT_LT(ComputeScore(small), ComputeScore(big));
  EXPECT_LT(ComputeScore(smaller), ComputeScore(small));
  EXPECT_EQ(ComputeScore(smaller).compute_nodes(), 1);
  EXPECT_EQ(ComputeScore(smaller).input_elements(), 8);
}

TEST(Score, F32IsSimplerThanF16) {
  Candidate f16 = ParseCandidate(R"(graph @g(%x: f16[4]) {
  %c = neg(%x) : f16[4]
  return %c
})");
  Candidate f32 = ParseCandidate(R"(graph @g(%x: f32[4]) {
  %c = neg(%x) : f32[4]
  return %c
})");
  EXPECT_LT(ComputeScore(f32), ComputeScore(f16));
}

TEST(CandidateKey, DependsOnValuesNotNames) {
  Candidate a = ParseCandidate(kGraph);
  Candidate b = ParseCandidate(R"(graph @h(%p: f32[4], %q: f32[4]) {
  %2 = neg(%p) : f32[4]
  %3 = exp(%2) : f32[4]
  %4 = add(%3, %q) : f32[4]
  return %4
})");
  EXPECT_EQ(CandidateKey(a), CandidateKey(b));
  b.inputs[0] = b.inputs[1];
  EXPECT_NE(CandidateKey(a), CandidateKey(b));
}

}  // namespace
}  // namespace rk::minifier
