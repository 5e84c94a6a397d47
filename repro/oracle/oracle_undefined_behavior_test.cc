// The oracle turns undefined behavior (compiler/reference/undefined_behavior.h)
// into cannot_judge "undefined behavior at %node: what", whatever the judged
// compiler did: the built-in one's answer, an external backend's other
// answer, its compile error or crash (ONNX Runtime refuses a constant
// integer divisor of 0 at session creation). The same graph without the
// undefined behavior is judged as usual.
#include <cmath>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "compiler/ir/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repro/oracle/oracle.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::Graph;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;
using ::testing::HasSubstr;

constexpr char kDivGraph[] = R"(
graph @g(%a: i32[4], %b: i32[4]) {
  %q = div(%a, %b) : i32[4]
  return %q
}
)";

HostTensor Ints(std::vector<int64_t> values) {
  HostTensor t(TensorType(DType::kI32, Shape({static_cast<int64_t>(values.size())})));
  for (size_t i = 0; i < values.size(); ++i) t.SetInt(static_cast<int64_t>(i), values[i]);
  return t;
}

Graph ParseOrDie(const char* text) {
  absl::StatusOr<Graph> g = compiler::Parse(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

const std::vector<HostTensor> kByZero = {Ints({8, 9, 10, 11}), Ints({2, 0, 5, 1})};
const std::vector<HostTensor> kByNonZero = {Ints({8, 9, 10, 11}), Ints({2, 3, 5, 1})};

// An external backend's runs: every output element `value`.
RunProgram Answering(int64_t value) {
  return [value](const Graph&, absl::Span<const HostTensor>, int runs) -> absl::StatusOr<ProgramRuns> {
    ProgramRuns p;
    for (int r = 0; r < runs; ++r) p.runs.push_back({Ints({value, value, value, value})});
    return p;
  };
}

// An external backend that ended the judgement itself.
RunProgram Ending(VerdictKind kind, const char* message) {
  return [kind, message](const Graph&, absl::Span<const HostTensor>, int) -> absl::StatusOr<ProgramRuns> {
    ProgramRuns p;
    Verdict v;
    v.kind = kind;
    v.signature = {kind, "external"};
    v.message = message;
    p.ended = v;
    return p;
  };
}

Verdict JudgeWithOrDie(const std::vector<HostTensor>& inputs, const RunProgram& run) {
  absl::StatusOr<Verdict> v = JudgeWith(ParseOrDie(kDivGraph), inputs, {}, {}, run);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : Verdict();
}

constexpr char kMessage[] = "undefined behavior at %q: integer division by zero (element 1: 9 / 0)";

TEST(OracleUndefinedBehaviorTest, BuiltinCompilerIsNotJudged) {
  absl::StatusOr<Verdict> v = JudgeInProcess(ParseOrDie(kDivGraph), kByZero, {}, {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kCannotJudge);
  EXPECT_EQ(v->message, kMessage);
  EXPECT_FALSE(IsFailure(v->kind));
}

TEST(OracleUndefinedBehaviorTest, ExternalBackendsOtherAnswerIsNotJudged) {
  const Verdict v = JudgeWithOrDie(kByZero, Answering(7));
  EXPECT_EQ(v.kind, VerdictKind::kCannotJudge);
  EXPECT_EQ(v.message, kMessage);
}

TEST(OracleUndefinedBehaviorTest, ExternalBackendsErrorOrCrashIsNotJudged) {
  for (VerdictKind kind : {VerdictKind::kCompileError, VerdictKind::kCrash}) {
    const Verdict v = JudgeWithOrDie(
        kByZero, Ending(kind, "Exception during initialization: Integer division by zero"));
    EXPECT_EQ(v.kind, VerdictKind::kCannotJudge);
    EXPECT_EQ(v.message, kMessage);
  }
}

// Without the zero divisor the same answers are judged: a wrong answer is an
// accuracy failure and an error stays what the backend said.
TEST(OracleUndefinedBehaviorTest, DefinedGraphIsJudgedAsUsual) {
  EXPECT_EQ(JudgeWithOrDie(kByNonZero, Answering(7)).kind, VerdictKind::kAccuracy);
  EXPECT_EQ(JudgeWithOrDie(kByNonZero, Ending(VerdictKind::kCompileError, "refused")).kind,
            VerdictKind::kCompileError);
  absl::StatusOr<Verdict> v = JudgeInProcess(ParseOrDie(kDivGraph), kByNonZero, {}, {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kPass) << v->message;
}

// The built-in compiler crashing in an isolated worker (a planted crash in
// div) on a graph with undefined behavior: cannot_judge; on the same graph
// without it, the crash is the verdict.
TEST(OracleUndefinedBehaviorTest, IsolatedCrashOnUndefinedBehaviorIsNotJudged) {
  Oracle::Config config;
  config.limits.timeout = absl::Seconds(20);
  absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  compiler::CompileOptions crash;
  crash.faults.push_back("div:crash");
  absl::StatusOr<Verdict> v = (*oracle)->Judge(ParseOrDie(kDivGraph), kByZero, crash);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kCannotJudge);
  EXPECT_EQ(v->message, kMessage);
  v = (*oracle)->Judge(ParseOrDie(kDivGraph), kByNonZero, crash);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kCrash) << v->message;
}

// A float -> int cast of NaN (what ONNX leaves undefined) also stops it.
TEST(OracleUndefinedBehaviorTest, CastOfNaNIsNotJudged) {
  const Graph g = ParseOrDie(R"(
graph @g(%x: f32[2]) {
  %c = cast(%x) {dtype=i32} : i32[2]
  return %c
}
)");
  HostTensor x(TensorType(DType::kF32, Shape({2})));
  x.SetDouble(0, 1.5);
  x.SetDouble(1, std::nan(""));
  absl::StatusOr<Verdict> v = JudgeInProcess(g, {x}, {}, {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->kind, VerdictKind::kCannotJudge);
  EXPECT_THAT(v->message, HasSubstr("undefined behavior at %c: cast of nan to i32 (element 1)"));
}

}  // namespace
}  // namespace rk::repro
