#include "repro/backend/warm_up.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "repro/backend/graph_json.h"
#include "repro/backend/protocol.h"

namespace rk::repro {
namespace {

constexpr std::string_view kWarmUpGraph = R"(graph @warm_up(%x: f32[64,64]) {
  %y = mul(%x, %x) : f32[64,64]
  %z = add(%y, %x) : f32[64,64]
  return %z
}
)";

// Ids the backend's own requests never use (they count up from 1).
constexpr int64_t kWarmUpRequestId = int64_t{1} << 62;

}  // namespace

absl::Status WarmUp(BackendChannel& channel, std::string_view device, absl::Duration timeout,
                    const GraphToOnnx& to_onnx) {
  const BackendHello& hello = channel.hello();
  const std::string name(device);
  if (!hello.SupportsDevice(device) || !hello.SupportsOp("mul") || !hello.SupportsOp("add") ||
      !hello.SupportsDType("f32")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "backend '", hello.name, "' does not declare device ", name,
        " (or f32 add and mul): nothing to warm up there"));
  }
  absl::StatusOr<compiler::Graph> graph = compiler::Parse(kWarmUpGraph);
  if (!graph.ok()) return graph.status();
  RunRequest request;
  request.id = kWarmUpRequestId;
  request.device = name;
  request.graph_text = std::string(kWarmUpGraph);
  std::string json_payload;
  if (hello.Wants("json")) request.graph_json = GraphToJson(*graph, json_payload);
  if (hello.Wants("onnx")) {
    if (to_onnx == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "backend '", hello.name, "' asks for ONNX and this build cannot export it"));
    }
    absl::StatusOr<std::string> model = to_onnx(*graph);
    if (!model.ok()) return model.status();
    request.onnx = *std::move(model);
  }
  const compiler::TensorType type = graph->type(graph->inputs()[0]);
  request.inputs.emplace_back("x", compiler::HostTensor::Full(type, 0.5));
  const std::vector<compiler::TensorType> outputs = {type};
  BackendOutcome outcome =
      channel.Run(EncodeRunRequest(request, json_payload), request.id, outputs, 1, timeout);
  if (outcome.kind == BackendOutcome::Kind::kReply &&
      outcome.reply.kind == RunReply::Kind::kResult) {
    return absl::OkStatus();
  }
  std::string what;
  switch (outcome.kind) {
    case BackendOutcome::Kind::kReply: what = absl::StrCat("failed: ", outcome.reply.message); break;
    case BackendOutcome::Kind::kTimedOut: what = "timed out"; break;
    case BackendOutcome::Kind::kCrashed: what = absl::StrCat("died by signal ", outcome.signal); break;
    case BackendOutcome::Kind::kExited: what = absl::StrCat("exited: ", outcome.what); break;
    case BackendOutcome::Kind::kProtocolError: what = absl::StrCat("broke the protocol: ", outcome.what); break;
  }
  return absl::UnavailableError(
      absl::StrCat("backend '", hello.name, "' warming up on ", name, ": ", what));
}

}  // namespace rk::repro
