// The external backend protocol, version 1 (docs/BACKENDS.md): frames
// (magic, header length, payload length, JSON header, payload), tensors that
// point into a frame's payload, and the messages hello, run, phase, result,
// failure and shutdown. Both ends use it: the harness (backend_process.h) and
// reprokit's own server (builtin_server.h).
//
// Decoding is defensive: anything a misbehaving backend can write (bad magic,
// oversized or unparsable headers, tensors past the payload, sizes that do
// not match their shape) is an InvalidArgument naming what was wrong, never a
// crash or an unbounded allocation.
//
// Tested by repro/backend/protocol_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_PROTOCOL_H_
#define REPROKIT_REPRO_BACKEND_PROTOCOL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

inline constexpr int kBackendProtocolVersion = 1;
inline constexpr size_t kFramePrefixBytes = 16;
inline constexpr uint32_t kMaxFrameHeaderBytes = 64u << 20;

struct Frame {
  Json header;  // an object with a string "type"
  std::string payload;
  const std::string& type() const;
};

std::string EncodeFrame(const Json& header, std::string_view payload);

// Takes one whole frame off the front of `buffer` when it holds one (nullopt
// when more bytes are needed). `max_payload` bounds what a peer may announce.
absl::StatusOr<std::optional<Frame>> TakeFrame(std::string& buffer, uint64_t max_payload);

// A tensor in a header: {"dtype", "shape", "offset", "size"}; the bytes are
// appended to `payload`.
Json AppendTensor(const compiler::HostTensor& tensor, std::string& payload);
// Reads a tensor reference from a header against its frame's payload.
absl::StatusOr<compiler::HostTensor> ReadTensor(const Json& ref, std::string_view payload);

struct BackendOptionInfo {
  std::string name;
  std::string default_value;
  std::string help;
};

struct BackendHello {
  int protocol = kBackendProtocolVersion;
  std::string name;
  std::string version;
  std::vector<std::string> devices;
  std::vector<std::string> dtypes;
  std::vector<std::string> ops;  // {"*"}: every op
  // Optional, per op: the dtypes it takes (an op's node dtype: its first
  // operand's, where's second, a source's own; see applicability.h). An op
  // absent here is limited by `dtypes` alone. Sorted by op (std::map).
  std::map<std::string, std::vector<std::string>> op_dtypes;
  std::vector<std::string> graph_formats;  // besides "rk": "json", "onnx"
  std::vector<BackendOptionInfo> options;

  bool SupportsOp(std::string_view op) const;
  bool SupportsDType(std::string_view dtype) const;
  // `dtype` is one of `dtypes` and, when op_dtypes names `op`, one of its.
  bool SupportsOpDType(std::string_view op, std::string_view dtype) const;
  bool SupportsDevice(std::string_view device) const;
  bool Wants(std::string_view format) const;
  const BackendOptionInfo* FindOption(std::string_view name) const;
};

Json HelloToJson(const BackendHello& hello);
// Checks the type and the protocol version first, so that a backend of
// another version is told apart from a broken one.
absl::StatusOr<BackendHello> HelloFromJson(const Json& header);

struct RunRequest {
  int64_t id = 0;
  std::string device = "cpu";
  int runs = 1;
  std::vector<std::pair<std::string, std::string>> options;
  std::string graph_text;  // the .rk form (always)
  std::optional<Json> graph_json;  // with its constants already in `payload`
  std::optional<std::string> onnx;  // model bytes
  std::vector<std::pair<std::string, compiler::HostTensor>> inputs;  // name, value
};

// The frame bytes of a run request; `graph_json_payload` is the payload the
// graph's JSON form points into (GraphToJson), placed first.
std::string EncodeRunRequest(const RunRequest& request, const std::string& graph_json_payload);
// The server side: the request as sent (graph_json and onnx are not decoded).
absl::StatusOr<RunRequest> DecodeRunRequest(const Frame& frame);

struct RunReply {
  enum class Kind { kResult, kFailure };
  Kind kind = Kind::kResult;
  int64_t id = 0;
  std::vector<std::vector<compiler::HostTensor>> runs;
  double compile_seconds = 0;
  double run_seconds = 0;
  std::string failure_kind;  // compile_error | runtime_error | unsupported
  std::string message;
};

std::string EncodeRunReply(const RunReply& reply);
// A result or failure frame. For a result, `expected` (the graph's output
// types) and `runs` are checked: the number of runs and of outputs (a count
// that differs is malformed: outputs are matched by position), and that
// every tensor is well formed; the error names the first mismatch. An
// output of another dtype or shape than expected is returned as it came: a
// compiler's wrong answer, which the caller judges (backend_runner.h,
// shape_mismatch), not a broken message.
absl::StatusOr<RunReply> DecodeRunReply(const Frame& frame,
                                        absl::Span<const compiler::TensorType> expected,
                                        int runs);

std::string EncodePhase(int64_t id, std::string_view phase);
std::string EncodeShutdown();

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_PROTOCOL_H_
