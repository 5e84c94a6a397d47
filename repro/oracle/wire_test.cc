#include "repro/oracle/wire.h"

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::TensorType;

TEST(WireTest, RequestRoundTrip) {
  OracleRequest q;
  q.graph_text = "graph @g(%x: f32[2]) {\n  return %x\n}\n";
  q.options_text = "fast_math=true";
  q.policy = "strict";
  q.tol = 1e-3;
  q.compare_non_float = false;
  q.runs = 3;
  q.inputs.push_back(HostTensor::Random(TensorType(DType::kF32, {2, 3}), 7));
  q.inputs.push_back(HostTensor::Random(TensorType(DType::kBF16, {}), 8));
  absl::StatusOr<OracleRequest> back = DecodeRequest(EncodeRequest(q));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->graph_text, q.graph_text);
  EXPECT_EQ(back->options_text, q.options_text);
  EXPECT_EQ(back->policy, "strict");
  EXPECT_DOUBLE_EQ(back->tol, 1e-3);
  EXPECT_FALSE(back->compare_non_float);
  EXPECT_EQ(back->runs, 3);
  ASSERT_EQ(back->inputs.size(), 2u);
  EXPECT_TRUE(back->inputs[0].BitwiseEqual(q.inputs[0]));
  EXPECT_TRUE(back->inputs[1].BitwiseEqual(q.inputs[1]));
}

TEST(WireTest, VerdictRoundTrip) {
  Verdict v;
  v.kind = VerdictKind::kAccuracy;
  v.signature = AccuracySignature("miscompile", "relu", "f32");
  v.message = "output 0 differs";
  v.accuracy_subkind = "miscompile";
  OutputVerdict o;
  o.index = 0;
  o.node = "y";
  o.op = "relu";
  o.dtype = "f32";
  o.metrics.mismatches = 3;
  o.metrics.rmse_ratio = 12.5;
  o.metrics.judgement = Judgement::kFail;
  o.metrics.reason = "bad";
  v.outputs.push_back(o);
  v.warnings = {"w1"};
  v.backtrace = {"f", "g"};
  v.compile_seconds = 0.25;
  absl::StatusOr<Verdict> back = DecodeVerdict(EncodeVerdict(v));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->signature, v.signature);
  EXPECT_EQ(back->message, v.message);
  ASSERT_EQ(back->outputs.size(), 1u);
  EXPECT_EQ(back->outputs[0].metrics.mismatches, 3);
  EXPECT_DOUBLE_EQ(back->outputs[0].metrics.rmse_ratio, 12.5);
  EXPECT_EQ(back->outputs[0].metrics.judgement, Judgement::kFail);
  EXPECT_EQ(back->backtrace, v.backtrace);
  EXPECT_DOUBLE_EQ(back->compile_seconds, 0.25);
}

TEST(WireTest, TruncatedOrGarbageIsAnErrorNotACrash) {
  OracleRequest q;
  q.graph_text = "x";
  q.inputs.push_back(HostTensor::Random(TensorType(DType::kF32, {4}), 1));
  std::string bytes = EncodeRequest(q);
  for (size_t cut = 0; cut < bytes.size(); cut += 3) {
    EXPECT_FALSE(DecodeRequest(bytes.substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(DecodeVerdict(std::string(100, '\xff')).ok());
  EXPECT_FALSE(DecodeVerdict(bytes + "trailing").ok());
}

}  // namespace
}  // namespace rk::repro
