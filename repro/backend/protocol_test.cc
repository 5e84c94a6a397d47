#include "repro/backend/protocol.h"

#include <string>

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "repro/backend/graph_json.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

TEST(ProtocolTest, FrameRoundTripInPieces) {
  Json header = Json::MakeObject();
  header["type"] = "phase";
  header["name"] = "compile";
  const std::string bytes = EncodeFrame(header, "payload");
  std::string buffer;
  // Fed a byte at a time, the frame appears exactly when complete.
  for (size_t i = 0; i < bytes.size(); ++i) {
    buffer.push_back(bytes[i]);
    absl::StatusOr<std::optional<Frame>> frame = TakeFrame(buffer, 1 << 20);
    ASSERT_TRUE(frame.ok()) << frame.status();
    if (i + 1 < bytes.size()) {
      EXPECT_FALSE(frame->has_value());
    } else {
      ASSERT_TRUE(frame->has_value());
      EXPECT_EQ((*frame)->type(), "phase");
      EXPECT_EQ((*frame)->payload, "payload");
      EXPECT_TRUE(buffer.empty());
    }
  }
}

TEST(ProtocolTest, GarbageIsRefused) {
  std::string buffer = "hello world, not a frame";
  absl::StatusOr<std::optional<Frame>> frame = TakeFrame(buffer, 1 << 20);
  ASSERT_FALSE(frame.ok());
  EXPECT_NE(frame.status().message().find("RKBP"), std::string::npos) << frame.status();

  // A header that is not JSON, an oversized header, an oversized payload.
  std::string not_json = std::string("RKBP") + std::string("\x03\0\0\0", 4) +
                         std::string(8, '\0') + "{{{";
  EXPECT_FALSE(TakeFrame(not_json, 1 << 20).ok());
  std::string huge = std::string("RKBP") + std::string("\xff\xff\xff\x7f", 4) + std::string(8, '\0');
  EXPECT_FALSE(TakeFrame(huge, 1 << 20).ok());
  Json header = Json::MakeObject();
  header["type"] = "result";
  std::string big_payload = EncodeFrame(header, std::string(100, 'x'));
  EXPECT_FALSE(TakeFrame(big_payload, 10).ok());
}

TEST(ProtocolTest, TensorsPointIntoThePayload) {
  HostTensor a = HostTensor::Random(TensorType(DType::kBF16, Shape({3, 5})), 1);
  HostTensor b = HostTensor::Random(TensorType(DType::kBool, Shape({4})), 2);
  std::string payload;
  Json ra = AppendTensor(a, payload), rb = AppendTensor(b, payload);
  absl::StatusOr<HostTensor> a2 = ReadTensor(ra, payload), b2 = ReadTensor(rb, payload);
  ASSERT_TRUE(a2.ok() && b2.ok());
  EXPECT_TRUE(a2->BitwiseEqual(a));
  EXPECT_TRUE(b2->BitwiseEqual(b));
  // Past the payload, or a size that does not fit the shape.
  Json bad = ra;
  bad["offset"] = 1000;
  EXPECT_FALSE(ReadTensor(bad, payload).ok());
  bad = ra;
  bad["size"] = 2;
  EXPECT_FALSE(ReadTensor(bad, payload).ok());
}

TEST(ProtocolTest, HelloChecksTheVersion) {
  BackendHello hello;
  hello.name = "mine";
  hello.version = "1.0";
  hello.ops = {"add", "relu"};
  hello.options = {{"level", "2", "how hard"}};
  absl::StatusOr<BackendHello> back = HelloFromJson(HelloToJson(hello));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->SupportsOp("relu"));
  EXPECT_FALSE(back->SupportsOp("exp"));
  ASSERT_NE(back->FindOption("level"), nullptr);
  Json other = HelloToJson(hello);
  other["protocol"] = 99;
  absl::StatusOr<BackendHello> refused = HelloFromJson(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("99"), std::string::npos);
}

TEST(ProtocolTest, HelloCarriesPerOpDTypes) {
  BackendHello hello;
  hello.name = "mine";
  hello.dtypes = {"f32", "i32", "bool"};
  hello.op_dtypes = {{"gt", {"f32", "i32"}}, {"and", {"bool"}}};
  absl::StatusOr<BackendHello> back = HelloFromJson(HelloToJson(hello));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->op_dtypes, hello.op_dtypes);
  EXPECT_TRUE(back->SupportsOpDType("gt", "i32"));
  EXPECT_FALSE(back->SupportsOpDType("gt", "bool"));
  EXPECT_TRUE(back->SupportsOpDType("add", "i32"));    // not in the map: dtypes alone
  EXPECT_FALSE(back->SupportsOpDType("add", "f64"));   // not a declared dtype at all
  Json bad = HelloToJson(hello);
  Json list = Json::MakeArray();
  list.push_back("f33");
  bad["op_dtypes"]["gt"] = std::move(list);
  absl::StatusOr<BackendHello> refused = HelloFromJson(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("f33"), std::string::npos) << refused.status();
  // A hello without the map reads as none.
  hello.op_dtypes.clear();
  back = HelloFromJson(HelloToJson(hello));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->op_dtypes.empty());
  EXPECT_FALSE(HelloToJson(hello).Contains("op_dtypes"));
}

TEST(ProtocolTest, RunRequestAndReplyRoundTrip) {
  absl::StatusOr<compiler::Graph> graph = compiler::Parse(R"(
graph @g(%x: f32[2,3]) {
  %c = constant() {value=dense<f32[3]>[1, 2, 3]} : f32[3]
  %y = add(%x, %c) : f32[2,3]
  %s = reduce_sum(%y) {axes=[1], keepdim=false} : f32[2]
  return %y, %s
})");
  ASSERT_TRUE(graph.ok()) << graph.status();
  RunRequest request;
  request.id = 7;
  request.runs = 2;
  request.options = {{"k", "v"}};
  request.graph_text = "graph text";
  std::string json_payload;
  request.graph_json = GraphToJson(*graph, json_payload);
  request.onnx = std::string("onnx bytes");
  request.inputs.emplace_back("x", HostTensor::Random(TensorType(DType::kF32, Shape({2, 3})), 3));
  std::string bytes = EncodeRunRequest(request, json_payload);
  absl::StatusOr<std::optional<Frame>> frame = TakeFrame(bytes, uint64_t{1} << 30);
  ASSERT_TRUE(frame.ok() && frame->has_value());
  absl::StatusOr<RunRequest> decoded = DecodeRunRequest(**frame);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->id, 7);
  EXPECT_EQ(decoded->runs, 2);
  ASSERT_EQ(decoded->inputs.size(), 1u);
  EXPECT_TRUE(decoded->inputs[0].second.BitwiseEqual(request.inputs[0].second));
  // The JSON graph's constant points at the right bytes.
  const Json& nodes = *(*frame)->header.Find("graph")->Find("json")->Find("nodes");
  const Json& value = *nodes.array()[1].Find("attrs")->Find("value")->Find("tensor");
  absl::StatusOr<HostTensor> c = ReadTensor(value, (*frame)->payload);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->GetDouble(2), 3.0);

  std::vector<TensorType> outputs = {TensorType(DType::kF32, Shape({2, 3})),
                                     TensorType(DType::kF32, Shape({2}))};
  RunReply reply;
  reply.id = 7;
  for (int r = 0; r < 2; ++r) {
    reply.runs.push_back({HostTensor::Zeros(outputs[0]), HostTensor::Zeros(outputs[1])});
  }
  std::string reply_bytes = EncodeRunReply(reply);
  frame = TakeFrame(reply_bytes, 1 << 20);
  ASSERT_TRUE(frame.ok() && frame->has_value());
  EXPECT_TRUE(DecodeRunReply(**frame, outputs, 2).ok());
  // Wrong number of runs or of outputs: each named.
  absl::StatusOr<RunReply> wrong = DecodeRunReply(**frame, outputs, 3);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("2 runs returned, 3 asked for"), std::string::npos);
  wrong = DecodeRunReply(**frame, {outputs[0]}, 2);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("2 outputs returned; the graph has 1"),
            std::string::npos);
  // A wrong type is the compiler's answer, returned as it came for the
  // oracle to judge (shape_mismatch), not a broken message.
  absl::StatusOr<RunReply> swapped = DecodeRunReply(**frame, {outputs[1], outputs[0]}, 2);
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_EQ(swapped->runs[0][0].type(), outputs[0]);
}

}  // namespace
}  // namespace rk::repro
