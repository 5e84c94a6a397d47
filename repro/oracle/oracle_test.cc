#include "repro/oracle/oracle.h"

#include <unistd.h>

#include <string>

#include "absl/time/clock.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;
using compiler::Graph;
using compiler::HostTensor;

constexpr char kReluGraph[] = R"(
graph @g(%x: f32[4,33], %w: f32[33]) {
  %a = mul(%x, %w) : f32[4,33]
  %y = relu(%a) : f32[4,33]
  %s = reduce_sum(%y) {axes=[1], keepdim=false} : f32[4]
  return %y, %s
}
)";

Graph ParseOrDie(const char* text) {
  absl::StatusOr<Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

CompileOptions WithFault(const std::string& fault) {
  CompileOptions o;
  if (!fault.empty()) o.faults.push_back(fault);
  return o;
}

class OracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Oracle::Config config;
    config.limits.timeout = absl::Seconds(3);
    config.workers = 2;
    absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
    ASSERT_TRUE(oracle.ok()) << oracle.status();
    oracle_ = oracle->release();
  }
  static void TearDownTestSuite() {
    delete oracle_;
    oracle_ = nullptr;
  }

  Verdict Judge(const std::string& fault, const char* text = kReluGraph) {
    Graph g = ParseOrDie(text);
    absl::StatusOr<Verdict> v = oracle_->Judge(g, compiler::SeededInputs(g, 1), WithFault(fault));
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : Verdict();
  }

  static Oracle* oracle_;
};

Oracle* OracleTest::oracle_ = nullptr;

TEST_F(OracleTest, NoFaultPasses) {
  Verdict v = Judge("");
  EXPECT_EQ(v.kind, VerdictKind::kPass) << v.message;
  ASSERT_EQ(v.outputs.size(), 2u);
  EXPECT_EQ(v.outputs[0].op, "relu");
  EXPECT_EQ(v.outputs[1].op, "reduce_sum");
}

TEST_F(OracleTest, AccuracyFaultIsAMiscompileOfRelu) {
  Verdict v = Judge("relu:accuracy");
  EXPECT_EQ(v.kind, VerdictKind::kAccuracy) << v.message;
  EXPECT_EQ(v.accuracy_subkind, "miscompile");
  EXPECT_EQ(v.signature.ToString(), "accuracy:miscompile:relu:f32");
  EXPECT_EQ(v.outputs[0].metrics.judgement, Judgement::kFail);
}

TEST_F(OracleTest, CompileErrorFault) {
  Verdict v = Judge("relu:compile_error");
  EXPECT_EQ(v.kind, VerdictKind::kCompileError) << v.message;
  EXPECT_EQ(v.signature.ToString(), "compile_error:INTERNAL:injected fault: relu:compile_error");
}

TEST_F(OracleTest, CrashFaultIsAVerdictAndTheParentLives) {
  Verdict v = Judge("relu:crash");
  EXPECT_EQ(v.kind, VerdictKind::kCrash) << v.message;
  EXPECT_EQ(v.signature.detail.rfind("SIGSEGV", 0), 0u) << v.signature.ToString();
  // The pool replaced the worker: the next judgement works.
  EXPECT_EQ(Judge("").kind, VerdictKind::kPass);
}

TEST_F(OracleTest, AbortFault) {
  Verdict v = Judge("relu:abort");
  EXPECT_EQ(v.kind, VerdictKind::kCrash) << v.message;
  EXPECT_EQ(v.signature.detail.rfind("SIGABRT", 0), 0u) << v.signature.ToString();
}

TEST_F(OracleTest, HangFaultTimesOutWithinTheLimit) {
  absl::Time start = absl::Now();
  Verdict v = Judge("relu:hang");
  EXPECT_LT(absl::Now() - start, absl::Seconds(6));
  EXPECT_EQ(v.kind, VerdictKind::kTimeout) << v.message;
  EXPECT_EQ(v.signature.ToString(), "timeout@compile");
}

TEST_F(OracleTest, RuntimeCrashFault) {
  Verdict v = Judge("relu:runtime_crash");
  EXPECT_EQ(v.kind, VerdictKind::kCrash) << v.message;
}

TEST_F(OracleTest, NondeterministicFault) {
  Verdict v = Judge("relu:nondeterministic");
  EXPECT_EQ(v.kind, VerdictKind::kNondeterministic) << v.message;
  EXPECT_EQ(v.signature.ToString(), "nondeterministic:relu:f32");
}

TEST_F(OracleTest, FaultOnAnAbsentOpDoesNotFire) {
  EXPECT_EQ(Judge("tanh:accuracy").kind, VerdictKind::kPass);
  EXPECT_EQ(Judge("tanh:crash").kind, VerdictKind::kPass);
}

TEST_F(OracleTest, SignatureStableAcrossRunsAndUnrelatedChanges) {
  Verdict a = Judge("relu:accuracy");
  Verdict b = Judge("relu:accuracy");
  Verdict c = Judge("relu:accuracy", R"(
graph @other(%x: f32[4,33], %w: f32[33], %u: f32[7]) {
  %a = mul(%x, %w) : f32[4,33]
  %yy = relu(%a) : f32[4,33]
  %t = tanh(%u) : f32[7]
  return %yy, %t
}
)");
  EXPECT_EQ(a.signature, b.signature);
  EXPECT_EQ(a.signature, c.signature);
  Verdict d = Judge("relu:compile_error");
  Verdict e = Judge("relu:compile_error", R"(
graph @h(%q: f32[2]) {
  %r = relu(%q) : f32[2]
  return %r
}
)");
  EXPECT_EQ(d.signature, e.signature);
}

TEST_F(OracleTest, LowPrecisionGraphsPass) {
  const char* text = R"(
graph @lp(%x: bf16[8,64], %y: f16[64]) {
  %a = exp(%x) : bf16[8,64]
  %s = reduce_sum(%a) {axes=[1], keepdim=true} : bf16[8,1]
  %d = div(%a, %s) : bf16[8,64]
  %c = cast(%y) {dtype=bf16} : bf16[64]
  %o = mul(%d, %c) : bf16[8,64]
  return %o
}
)";
  EXPECT_EQ(Judge("", text).kind, VerdictKind::kPass);
}

TEST_F(OracleTest, BadInputIsAnErrorNotAVerdict) {
  Graph g = ParseOrDie(kReluGraph);
  std::vector<HostTensor> inputs = compiler::SeededInputs(g, 1);
  inputs.pop_back();
  absl::StatusOr<Verdict> v = oracle_->Judge(g, inputs, {});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  inputs = compiler::SeededInputs(g, 1);
  inputs[1] = HostTensor::Zeros(compiler::TensorType(compiler::DType::kF32, {32}));
  v = oracle_->Judge(g, inputs, {});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("input %w"), std::string::npos) << v.status();
}

// A fault typo is bad input, never a compile_error verdict (or a bundle).
TEST_F(OracleTest, UnknownFaultSpecIsAnError) {
  Graph g = ParseOrDie(kReluGraph);
  absl::StatusOr<Verdict> v =
      oracle_->Judge(g, compiler::SeededInputs(g, 1), WithFault("relu:bogus"));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
}

// A graph too large to judge is refused before anything is allocated.
TEST_F(OracleTest, GraphOverTheMemoryLimitIsRefused) {
  Graph g = ParseOrDie(R"(graph @g(%x: f32[2]) {
  %y = full() {value=1.0, dtype=f32, shape=[4,1024,1024,4096]} : f32[4,1024,1024,4096]
  return %y
})");
  absl::StatusOr<Verdict> v = oracle_->Judge(g, compiler::SeededInputs(g, 1), {});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("limit 8.0 GiB"), std::string::npos) << v.status();
}

// cast(x: f32) {dtype=f64} with cast:accuracy: the fp64 recompile turns the
// cast into f64->f64, where the fault does not fire; still a miscompile.
TEST_F(OracleTest, PlantedCastFaultStaysAMiscompile) {
  Verdict v = Judge("cast:accuracy", R"(graph @g(%x: f32[64]) {
  %c = cast(%x) {dtype=f64} : f64[64]
  return %c
})");
  EXPECT_EQ(v.kind, VerdictKind::kAccuracy) << v.message;
  EXPECT_EQ(v.accuracy_subkind, "miscompile") << v.message;
}

// One NaN expected at the same place (the fp64 reference has it too) must not
// hide a miscompiled exp in the other 999 elements.
TEST_F(OracleTest, ExpectedNaNDoesNotBlindTheOracle) {
  Graph g = ParseOrDie(R"(graph @g(%x: f32[1000]) {
  %s = sqrt(%x) : f32[1000]
  %e = exp(%s) : f32[1000]
  return %e
})");
  HostTensor x(g.type(g.inputs()[0]));
  for (int i = 0; i < 1000; ++i) x.SetDouble(i, i == 7 ? -1.0 : i / 500.0);
  absl::StatusOr<Verdict> v = oracle_->Judge(g, {x}, WithFault("exp:accuracy"));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kAccuracy) << v->message;
  v = oracle_->Judge(g, {x}, {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kPass) << v->message;
}

// The fault-free fuzz finding of issue #24: an f64 output of a bf16 chain is
// judged by the precision it was computed in. Seeds 3, 5 and 6 failed with
// accuracy:precision:cast:f64 when judged at f64 tolerance.
TEST_F(OracleTest, F64OutputOfABf16ChainPasses) {
  Graph g = ParseOrDie(R"(graph @fuzz(%x0: bf16[3]) {
  %1 = reduce_mean(%x0) {axes=[0], keepdim=false} : bf16[]
  %2 = erf(%1) : bf16[]
  %3 = cast(%2) {dtype=f64} : f64[]
  return %3
})");
  for (uint64_t seed = 0; seed < 16; ++seed) {
    absl::StatusOr<Verdict> v = oracle_->Judge(g, compiler::SeededInputs(g, seed), {});
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->kind, VerdictKind::kPass) << "seed " << seed << ": " << v->message;
  }
}

TEST(OracleInProcessTest, MatchesIsolatedForStatusFaults) {
  Graph g = ParseOrDie(kReluGraph);
  absl::StatusOr<Verdict> v =
      JudgeInProcess(g, compiler::SeededInputs(g, 1), WithFault("relu:compile_error"), {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, VerdictKind::kCompileError);
  absl::StatusOr<Verdict> p = JudgeInProcess(g, compiler::SeededInputs(g, 1), {}, {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kind, VerdictKind::kPass);
  OracleOptions bad;
  bad.policy = "lenient";
  EXPECT_FALSE(JudgeInProcess(g, compiler::SeededInputs(g, 1), {}, bad).ok());
}

}  // namespace
}  // namespace rk::repro
