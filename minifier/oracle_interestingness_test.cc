// Tests the signature matching of OracleInterestingness: exact signatures, and
// accuracy failures anchored upstream of the expected failing op. Verdicts
// are built by hand; the real oracle runs in minify_bundle_test.cc.
#include "minifier/oracle_interestingness.h"

#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"

namespace rk::minifier {
namespace {

// relu feeds add, which is the output; sin is a side branch to a second
// output.
constexpr char kGraph[] = R"(graph @g(%x: f32[4], %y: f32[4]) {
  %r = relu(%x) : f32[4]
  %s = sin(%y) : f32[4]
  %a = add(%r, %s) : f32[4]
  %c = cos(%y) : f32[4]
  return %a, %c
})";

repro::Verdict AccuracyVerdict(const std::string& subkind, const std::string& op,
                               const std::string& node) {
  repro::Verdict v;
  v.kind = repro::VerdictKind::kAccuracy;
  v.accuracy_subkind = subkind;
  v.signature = repro::AccuracySignature(subkind, op, "f32");
  repro::OutputVerdict passing;
  passing.node = "other";
  passing.op = "neg";
  passing.metrics.judgement = repro::Judgement::kPass;
  repro::OutputVerdict failing;
  failing.node = node;
  failing.op = op;
  failing.dtype = "f32";
  failing.metrics.judgement = repro::Judgement::kFail;
  v.outputs = {passing, failing};
  return v;
}

OracleInterestingness Anchored(const Candidate& start) {
  return OracleInterestingness(nullptr, compiler::CompileOptions(),
                           repro::AccuracySignature("miscompile", "add", "f32"), start.graph);
}

TEST(OracleInterestingnessTest, AcceptsTheExpectedSignature) {
  Candidate start = ParseCandidate(kGraph);
  EXPECT_TRUE(Anchored(start).Matches(AccuracyVerdict("miscompile", "add", "a")));
}

TEST(OracleInterestingnessTest, AcceptsAFailureUpstreamOfTheExpectedOp) {
  Candidate start = ParseCandidate(kGraph);
  EXPECT_TRUE(Anchored(start).Matches(AccuracyVerdict("miscompile", "relu", "r")));
  EXPECT_TRUE(Anchored(start).Matches(AccuracyVerdict("miscompile", "sin", "s")));
}

TEST(OracleInterestingnessTest, RejectsAnotherSubkindOrANodeOffThePath) {
  Candidate start = ParseCandidate(kGraph);
  OracleInterestingness anchored = Anchored(start);
  EXPECT_FALSE(anchored.Matches(AccuracyVerdict("precision", "relu", "r")));
  EXPECT_FALSE(anchored.Matches(AccuracyVerdict("miscompile", "cos", "c")));
  // A node the start graph does not know (e.g. from a decomposition).
  EXPECT_FALSE(anchored.Matches(AccuracyVerdict("miscompile", "relu", "relu_new")));
  repro::Verdict crash;
  crash.kind = repro::VerdictKind::kCrash;
  crash.signature = repro::CrashSignature("SIGSEGV", {}, "compile");
  EXPECT_FALSE(anchored.Matches(crash));
}

TEST(OracleInterestingnessTest, WithoutTheStartGraphOnlyTheExactSignatureMatches) {
  OracleInterestingness exact(nullptr, compiler::CompileOptions(),
                          repro::AccuracySignature("miscompile", "add", "f32"));
  EXPECT_TRUE(exact.Matches(AccuracyVerdict("miscompile", "add", "a")));
  EXPECT_FALSE(exact.Matches(AccuracyVerdict("miscompile", "relu", "r")));
}

// A candidate without a node the expected signature could name is answered
// without the oracle (the engine counts it as cannot_match).
TEST(OracleInterestingnessTest, CanMatchOnlyWhatHoldsTheNamedOpOrAnUpstreamNode) {
  OracleInterestingness relu(nullptr, compiler::CompileOptions(),
                             repro::AccuracySignature("miscompile", "relu", "f32"));
  EXPECT_TRUE(relu.CanMatch(ParseCandidate(kGraph)));
  EXPECT_FALSE(relu.CanMatch(ParseCandidate(R"(graph @g(%x: f32[4]) {
  %s = sin(%x) : f32[4]
  return %s
})"))) << "no relu";
  EXPECT_FALSE(relu.CanMatch(ParseCandidate(R"(graph @g(%x: f16[4]) {
  %r = relu(%x) : f16[4]
  return %r
})"))) << "a relu of another dtype";
  // An op inside a composite counts: softmax lowers to a sub.
  OracleInterestingness sub(nullptr, compiler::CompileOptions(),
                            repro::AccuracySignature("miscompile", "sub", "f32"));
  EXPECT_TRUE(sub.CanMatch(ParseCandidate(R"(graph @g(%x: f32[2,4]) {
  %p = softmax(%x) {axis=1} : f32[2,4]
  return %p
})")));
  // Anchored: any start-graph node upstream of the expected op, by name.
  Candidate start = ParseCandidate(kGraph);
  OracleInterestingness anchored = Anchored(start);
  EXPECT_TRUE(anchored.CanMatch(ParseCandidate(R"(graph @g(%y: f32[4]) {
  %s = sin(%y) : f32[4]
  return %s
})")));
  EXPECT_FALSE(anchored.CanMatch(ParseCandidate(R"(graph @g(%y: f32[4]) {
  %c = cos(%y) : f32[4]
  return %c
})")));
  // Other kinds of failure: always worth asking.
  OracleInterestingness crash(nullptr, compiler::CompileOptions(),
                              repro::CrashSignature("SIGSEGV", {}, "compile"));
  EXPECT_TRUE(crash.CanMatch(ParseCandidate(R"(graph @g(%y: f32[4]) {
  %c = cos(%y) : f32[4]
  return %c
})")));
}

// Without inputs, a small graph is folded whole by the built-in compiler
// (the reference interpreter computes it): no generated code runs, so no
// accuracy or nondeterminism failure can show. Folding off, a cap on pass
// applications, a large value or an external backend: worth asking.
TEST(OracleInterestingnessTest, CannotMatchAGraphTheCompilerFoldsWhole) {
  constexpr char kFolded[] = R"(graph @g() {
  %x = full() {dtype=f32, shape=[2,8], value=1.0} : f32[2,8]
  %m = reduce_mean(%x) {axes=[1], keepdim=false} : f32[2]
  %c = cast(%m) {dtype=bf16} : bf16[2]
  return %c
})";
  const repro::Signature accuracy = repro::AccuracySignature("miscompile", "cast", "bf16");
  OracleInterestingness builtin(nullptr, compiler::CompileOptions(), accuracy);
  EXPECT_FALSE(builtin.CanMatch(ParseCandidate(kFolded)));
  EXPECT_TRUE(builtin.CanMatch(ParseCandidate(R"(graph @g(%x: f32[2,8]) {
  %m = reduce_mean(%x) {axes=[1], keepdim=false} : f32[2]
  %c = cast(%m) {dtype=bf16} : bf16[2]
  return %c
})"))) << "an input: generated code runs";
  EXPECT_TRUE(builtin.CanMatch(ParseCandidate(R"(graph @g() {
  %x = full() {dtype=f32, shape=[2,4096], value=1.0} : f32[2,4096]
  %e = exp(%x) : f32[2,4096]
  %m = reduce_mean(%e) {axes=[1], keepdim=false} : f32[2]
  %c = cast(%m) {dtype=bf16} : bf16[2]
  return %c
})"))) << "too large to fold";
  for (const char* option : {"opt_level=0", "disable_passes=constant_fold",
                             "max_pass_applications=3"}) {
    absl::StatusOr<compiler::CompileOptions> options = compiler::CompileOptions::Parse(option);
    ASSERT_TRUE(options.ok()) << options.status();
    OracleInterestingness unfolded(nullptr, *options, accuracy);
    EXPECT_TRUE(unfolded.CanMatch(ParseCandidate(kFolded))) << option;
  }
  compiler::CompileOptions external;
  external.backend = "torch_inductor";
  EXPECT_TRUE(OracleInterestingness(nullptr, external, accuracy).CanMatch(ParseCandidate(kFolded)));
  OracleInterestingness crash(nullptr, compiler::CompileOptions(),
                              repro::CrashSignature("SIGSEGV", {}, "compile"));
  EXPECT_TRUE(crash.CanMatch(ParseCandidate(kFolded))) << "a pass may crash on constants";
}

TEST(OracleInterestingnessTest, NameUnnamedNodesKeepsNamesAndFillsTheRest) {
  Candidate dag = RandomDag({.seed = 3, .nodes = 10});
  NameUnnamedNodes(dag.graph);
  absl::flat_hash_set<std::string> names;
  for (const compiler::Node& node : dag.graph.nodes()) {
    EXPECT_FALSE(node.name.empty());
    EXPECT_TRUE(names.insert(node.name).second) << node.name;
  }
  EXPECT_EQ(dag.graph.node(compiler::NodeId(0)).name, "x0");
  EXPECT_EQ(dag.graph.node(compiler::NodeId(3)).name, "n3");
}

}  // namespace
}  // namespace rk::minifier
