#include "repro/backend/protocol.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

constexpr char kMagic[4] = {'R', 'K', 'B', 'P'};

void PutLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(const std::string& in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>(in[at + i])} << (8 * i);
  return v;
}

std::string Std(absl::string_view s) { return std::string(s); }

absl::StatusOr<std::vector<std::string>> StringList(const JsonRef& ref) {
  RK_ASSIGN_OR_RETURN(auto elements, ref.Elements());
  std::vector<std::string> out;
  for (const JsonRef& e : elements) {
    RK_ASSIGN_OR_RETURN(auto s, e.String());
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> OptionalStringList(const JsonRef& object,
                                                            std::string_view key) {
  RK_ASSIGN_OR_RETURN(auto field, object.OptionalField(key));
  if (!field) return std::vector<std::string>{};
  return StringList(*field);
}

Json StringArray(const std::vector<std::string>& items) {
  Json a = Json::MakeArray();
  for (const std::string& s : items) a.push_back(s);
  return a;
}

bool Contains(const std::vector<std::string>& list, std::string_view item) {
  for (const std::string& s : list) {
    if (s == item) return true;
  }
  return false;
}

}  // namespace

const std::string& Frame::type() const {
  static const std::string* const kNone = new std::string();
  const Json* t = header.is_object() ? header.Find("type") : nullptr;
  return t != nullptr && t->is_string() ? t->string_value() : *kNone;
}

std::string EncodeFrame(const Json& header, std::string_view payload) {
  const std::string text = header.Dump();
  std::string out(kMagic, 4);
  PutLe(out, text.size(), 4);
  PutLe(out, payload.size(), 8);
  out += text;
  out.append(payload.data(), payload.size());
  return out;
}

absl::StatusOr<std::optional<Frame>> TakeFrame(std::string& buffer, uint64_t max_payload) {
  const size_t have = std::min(buffer.size(), sizeof(kMagic));
  if (std::memcmp(buffer.data(), kMagic, have) != 0) {
    std::string shown = buffer.substr(0, 16);
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '.';
    }
    return absl::InvalidArgumentError(
        absl::StrCat("not a protocol frame (expected the magic RKBP, got \"", shown, "\")"));
  }
  if (buffer.size() < kFramePrefixBytes) return std::nullopt;
  const uint64_t header_size = GetLe(buffer, 4, 4);
  const uint64_t payload_size = GetLe(buffer, 8, 8);
  if (header_size == 0 || header_size > kMaxFrameHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "frame header of %u bytes (allowed: 1 to %u)", header_size, kMaxFrameHeaderBytes));
  }
  if (payload_size > max_payload) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "frame payload of %u bytes exceeds the %u this message may carry", payload_size,
        max_payload));
  }
  if (buffer.size() < kFramePrefixBytes + header_size + payload_size) return std::nullopt;
  JsonParseOptions options;
  options.filename = "frame header";
  absl::StatusOr<Json> header =
      ParseJson(std::string_view(buffer).substr(kFramePrefixBytes, header_size), options);
  if (!header.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("frame header is not JSON: ", Std(header.status().message())));
  }
  if (!header->is_object() || header->Find("type") == nullptr ||
      !header->Find("type")->is_string()) {
    return absl::InvalidArgumentError("frame header is not an object with a string \"type\"");
  }
  Frame frame;
  frame.header = *std::move(header);
  frame.payload = buffer.substr(kFramePrefixBytes + header_size, payload_size);
  buffer.erase(0, kFramePrefixBytes + header_size + payload_size);
  return frame;
}

Json AppendTensor(const HostTensor& tensor, std::string& payload) {
  Json j = Json::MakeObject();
  j["dtype"] = std::string(compiler::DTypeName(tensor.dtype()));
  Json shape = Json::MakeArray();
  for (int64_t d : tensor.shape().dims()) shape.push_back(static_cast<long long>(d));
  j["shape"] = std::move(shape);
  j["offset"] = static_cast<unsigned long long>(payload.size());
  j["size"] = static_cast<unsigned long long>(tensor.byte_size());
  absl::Span<const uint8_t> bytes = tensor.bytes();
  payload.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return j;
}

absl::StatusOr<HostTensor> ReadTensor(const Json& value, std::string_view payload) {
  JsonRef ref(value, "tensor");
  RK_ASSIGN_OR_RETURN(auto dtype_ref, ref.Field("dtype"));
  RK_ASSIGN_OR_RETURN(auto dtype_name, dtype_ref.String());
  std::optional<DType> dtype = compiler::ParseDType(dtype_name);
  if (!dtype) return dtype_ref.Error(absl::StrCat("unknown dtype '", dtype_name, "'"));
  RK_ASSIGN_OR_RETURN(auto shape_ref, ref.Field("shape"));
  RK_ASSIGN_OR_RETURN(auto dims, shape_ref.Elements());
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (const JsonRef& d : dims) {
    RK_ASSIGN_OR_RETURN(auto n, d.Int());
    if (n < 0 || n > (int64_t{1} << 40) || (n > 0 && elements > (int64_t{1} << 40) / n)) {
      return d.Error("dimension out of range");
    }
    elements *= n;
    shape.push_back(n);
  }
  if (shape.size() > 16) return shape_ref.Error("more than 16 dimensions");
  TensorType type(*dtype, Shape(std::move(shape)));
  RK_ASSIGN_OR_RETURN(auto offset_ref, ref.Field("offset"));
  RK_ASSIGN_OR_RETURN(auto offset, offset_ref.Uint());
  RK_ASSIGN_OR_RETURN(auto size_ref, ref.Field("size"));
  RK_ASSIGN_OR_RETURN(auto size, size_ref.Uint());
  if (size != static_cast<uint64_t>(type.byte_size())) {
    return size_ref.Error(absl::StrFormat("%u bytes for %s, which takes %d", size,
                                          type.ToString(), type.byte_size()));
  }
  if (offset > payload.size() || size > payload.size() - offset) {
    return offset_ref.Error(absl::StrFormat("bytes %u..%u lie outside the %u-byte payload",
                                            offset, offset + size, payload.size()));
  }
  return HostTensor::FromBytes(
      type, absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(payload.data() + offset), size));
}

bool BackendHello::SupportsOp(std::string_view op) const {
  return Contains(ops, "*") || Contains(ops, op);
}
bool BackendHello::SupportsDType(std::string_view dtype) const { return Contains(dtypes, dtype); }
bool BackendHello::SupportsOpDType(std::string_view op, std::string_view dtype) const {
  if (!SupportsDType(dtype)) return false;
  auto it = op_dtypes.find(std::string(op));
  return it == op_dtypes.end() || Contains(it->second, dtype);
}
bool BackendHello::SupportsDevice(std::string_view device) const {
  return Contains(devices, device);
}
bool BackendHello::Wants(std::string_view format) const { return Contains(graph_formats, format); }
const BackendOptionInfo* BackendHello::FindOption(std::string_view name) const {
  for (const BackendOptionInfo& o : options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

Json HelloToJson(const BackendHello& hello) {
  Json j = Json::MakeObject();
  j["type"] = "hello";
  j["protocol"] = hello.protocol;
  j["name"] = hello.name;
  j["version"] = hello.version;
  j["devices"] = StringArray(hello.devices);
  j["dtypes"] = StringArray(hello.dtypes);
  j["ops"] = StringArray(hello.ops);
  if (!hello.op_dtypes.empty()) {
    Json per_op = Json::MakeObject();
    for (const auto& [op, dtypes] : hello.op_dtypes) per_op[op] = StringArray(dtypes);
    j["op_dtypes"] = std::move(per_op);
  }
  j["graph_formats"] = StringArray(hello.graph_formats);
  Json options = Json::MakeArray();
  for (const BackendOptionInfo& o : hello.options) {
    Json item = Json::MakeObject();
    item["name"] = o.name;
    item["default"] = o.default_value;
    item["help"] = o.help;
    options.push_back(std::move(item));
  }
  j["options"] = std::move(options);
  return j;
}

absl::StatusOr<BackendHello> HelloFromJson(const Json& header) {
  JsonRef ref(header, "hello");
  RK_ASSIGN_OR_RETURN(auto type_ref, ref.Field("type"));
  RK_ASSIGN_OR_RETURN(auto type, type_ref.String());
  if (type != "hello") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a hello message first, got \"", type, "\""));
  }
  BackendHello hello;
  RK_ASSIGN_OR_RETURN(auto protocol_ref, ref.Field("protocol"));
  RK_ASSIGN_OR_RETURN(auto protocol, protocol_ref.Int());
  if (protocol != kBackendProtocolVersion) {
    return absl::FailedPreconditionError(
        absl::StrFormat("speaks protocol version %d; this reprokit speaks version %d "
                        "(docs/BACKENDS.md)",
                        protocol, kBackendProtocolVersion));
  }
  hello.protocol = static_cast<int>(protocol);
  RK_ASSIGN_OR_RETURN(auto name_ref, ref.Field("name"));
  RK_ASSIGN_OR_RETURN(hello.name, name_ref.String());
  if (hello.name.empty() || hello.name.find_first_of(" \t\n,=/") != std::string::npos) {
    return name_ref.Error("a backend name is a non-empty word without '/', ',' or '='");
  }
  RK_ASSIGN_OR_RETURN(auto version_ref, ref.Field("version"));
  RK_ASSIGN_OR_RETURN(hello.version, version_ref.String());
  RK_ASSIGN_OR_RETURN(hello.devices, OptionalStringList(ref, "devices"));
  if (hello.devices.empty()) hello.devices = {"cpu"};
  RK_ASSIGN_OR_RETURN(hello.dtypes, OptionalStringList(ref, "dtypes"));
  if (hello.dtypes.empty()) hello.dtypes = {"f32"};
  RK_ASSIGN_OR_RETURN(hello.ops, OptionalStringList(ref, "ops"));
  if (hello.ops.empty()) hello.ops = {"*"};
  RK_ASSIGN_OR_RETURN(auto op_dtypes_ref, ref.OptionalField("op_dtypes"));
  if (op_dtypes_ref) {
    RK_ASSIGN_OR_RETURN(auto members, op_dtypes_ref->Members());
    for (const auto& [op, list] : members) {
      RK_ASSIGN_OR_RETURN(std::vector<std::string> dtypes, StringList(list));
      for (const std::string& d : dtypes) {
        if (!compiler::ParseDType(d).has_value()) {
          return list.Error(absl::StrCat("unknown dtype \"", d, "\""));
        }
      }
      hello.op_dtypes[op] = std::move(dtypes);
    }
  }
  RK_ASSIGN_OR_RETURN(hello.graph_formats, OptionalStringList(ref, "graph_formats"));
  RK_ASSIGN_OR_RETURN(auto options_ref, ref.OptionalField("options"));
  if (options_ref) {
    RK_ASSIGN_OR_RETURN(auto items, options_ref->Elements());
    for (const JsonRef& item : items) {
      BackendOptionInfo o;
      RK_ASSIGN_OR_RETURN(auto n, item.Field("name"));
      RK_ASSIGN_OR_RETURN(o.name, n.String());
      if (o.name.empty() || o.name.find_first_of(" \t\n,:=") != std::string::npos) {
        return n.Error("an option name is a non-empty word without ',', ':' or '='");
      }
      RK_ASSIGN_OR_RETURN(auto d, item.OptionalField("default"));
      if (d) {
        RK_ASSIGN_OR_RETURN(o.default_value, d->String());
      }
      RK_ASSIGN_OR_RETURN(auto h, item.OptionalField("help"));
      if (h) {
        RK_ASSIGN_OR_RETURN(o.help, h->String());
      }
      hello.options.push_back(std::move(o));
    }
  }
  return hello;
}

std::string EncodeRunRequest(const RunRequest& request, const std::string& graph_json_payload) {
  std::string payload = graph_json_payload;
  Json j = Json::MakeObject();
  j["type"] = "run";
  j["id"] = static_cast<long long>(request.id);
  j["device"] = request.device;
  j["runs"] = request.runs;
  Json options = Json::MakeObject();
  for (const auto& [key, value] : request.options) options[key] = value;
  j["options"] = std::move(options);
  Json graph = Json::MakeObject();
  graph["rk"] = request.graph_text;
  if (request.graph_json) graph["json"] = *request.graph_json;
  if (request.onnx) {
    Json onnx = Json::MakeObject();
    onnx["offset"] = static_cast<unsigned long long>(payload.size());
    onnx["size"] = static_cast<unsigned long long>(request.onnx->size());
    payload += *request.onnx;
    graph["onnx"] = std::move(onnx);
  }
  j["graph"] = std::move(graph);
  Json inputs = Json::MakeArray();
  for (const auto& [name, tensor] : request.inputs) {
    Json t = AppendTensor(tensor, payload);
    t["name"] = name;
    inputs.push_back(std::move(t));
  }
  j["inputs"] = std::move(inputs);
  return EncodeFrame(j, payload);
}

absl::StatusOr<RunRequest> DecodeRunRequest(const Frame& frame) {
  JsonRef ref(frame.header, "run");
  RunRequest r;
  RK_ASSIGN_OR_RETURN(auto id_ref, ref.Field("id"));
  RK_ASSIGN_OR_RETURN(r.id, id_ref.Int());
  RK_ASSIGN_OR_RETURN(auto device_ref, ref.OptionalField("device"));
  if (device_ref) {
    RK_ASSIGN_OR_RETURN(r.device, device_ref->String());
  }
  RK_ASSIGN_OR_RETURN(auto runs_ref, ref.OptionalField("runs"));
  if (runs_ref) {
    RK_ASSIGN_OR_RETURN(auto runs, runs_ref->Int());
    if (runs < 1 || runs > 100) return runs_ref->Error("expected 1 to 100 runs");
    r.runs = static_cast<int>(runs);
  }
  RK_ASSIGN_OR_RETURN(auto options_ref, ref.OptionalField("options"));
  if (options_ref) {
    RK_ASSIGN_OR_RETURN(auto members, options_ref->Members());
    for (const auto& [key, value_ref] : members) {
      RK_ASSIGN_OR_RETURN(auto value, value_ref.String());
      r.options.emplace_back(key, std::move(value));
    }
  }
  RK_ASSIGN_OR_RETURN(auto graph_ref, ref.Field("graph"));
  RK_ASSIGN_OR_RETURN(auto rk_ref, graph_ref.Field("rk"));
  RK_ASSIGN_OR_RETURN(r.graph_text, rk_ref.String());
  RK_ASSIGN_OR_RETURN(auto inputs_ref, ref.Field("inputs"));
  RK_ASSIGN_OR_RETURN(auto inputs, inputs_ref.Elements());
  for (const JsonRef& input : inputs) {
    RK_ASSIGN_OR_RETURN(auto name_ref, input.Field("name"));
    RK_ASSIGN_OR_RETURN(auto name, name_ref.String());
    absl::StatusOr<HostTensor> t = ReadTensor(input.value(), frame.payload);
    if (!t.ok()) return input.Error(Std(t.status().message()));
    r.inputs.emplace_back(std::move(name), *std::move(t));
  }
  return r;
}

std::string EncodeRunReply(const RunReply& reply) {
  Json j = Json::MakeObject();
  j["id"] = static_cast<long long>(reply.id);
  std::string payload;
  if (reply.kind == RunReply::Kind::kFailure) {
    j["type"] = "failure";
    j["kind"] = reply.failure_kind;
    j["message"] = reply.message;
    return EncodeFrame(j, payload);
  }
  j["type"] = "result";
  j["compile_seconds"] = reply.compile_seconds;
  j["run_seconds"] = reply.run_seconds;
  Json runs = Json::MakeArray();
  for (const std::vector<HostTensor>& run : reply.runs) {
    Json outputs = Json::MakeArray();
    for (const HostTensor& t : run) outputs.push_back(AppendTensor(t, payload));
    runs.push_back(std::move(outputs));
  }
  j["runs"] = std::move(runs);
  return EncodeFrame(j, payload);
}

absl::StatusOr<RunReply> DecodeRunReply(const Frame& frame,
                                        absl::Span<const TensorType> expected, int runs) {
  JsonRef ref(frame.header, frame.type());
  RunReply reply;
  RK_ASSIGN_OR_RETURN(auto id_ref, ref.Field("id"));
  RK_ASSIGN_OR_RETURN(reply.id, id_ref.Int());
  if (frame.type() == "failure") {
    reply.kind = RunReply::Kind::kFailure;
    RK_ASSIGN_OR_RETURN(auto kind_ref, ref.Field("kind"));
    RK_ASSIGN_OR_RETURN(reply.failure_kind, kind_ref.String());
    if (reply.failure_kind != "compile_error" && reply.failure_kind != "runtime_error" &&
        reply.failure_kind != "unsupported") {
      return kind_ref.Error(absl::StrCat("unknown failure kind '", reply.failure_kind,
                                         "' (expected compile_error, runtime_error or "
                                         "unsupported)"));
    }
    RK_ASSIGN_OR_RETURN(auto message_ref, ref.OptionalField("message"));
    if (message_ref) {
      RK_ASSIGN_OR_RETURN(reply.message, message_ref->String());
    }
    return reply;
  }
  if (frame.type() != "result") {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a result or failure, got \"", frame.type(), "\""));
  }
  for (const char* key : {"compile_seconds", "run_seconds"}) {
    RK_ASSIGN_OR_RETURN(auto seconds, ref.OptionalField(key));
    if (!seconds) continue;
    RK_ASSIGN_OR_RETURN(auto value, seconds->Double());
    (std::string(key) == "compile_seconds" ? reply.compile_seconds : reply.run_seconds) = value;
  }
  RK_ASSIGN_OR_RETURN(auto runs_ref, ref.Field("runs"));
  RK_ASSIGN_OR_RETURN(auto run_list, runs_ref.Elements());
  if (static_cast<int>(run_list.size()) != runs) {
    return runs_ref.Error(absl::StrFormat("%d runs returned, %d asked for", run_list.size(), runs));
  }
  for (const JsonRef& run : run_list) {
    RK_ASSIGN_OR_RETURN(auto outputs, run.Elements());
    if (outputs.size() != expected.size()) {
      return run.Error(absl::StrFormat("%d outputs returned; the graph has %d", outputs.size(),
                                       expected.size()));
    }
    std::vector<HostTensor> values;
    for (size_t i = 0; i < outputs.size(); ++i) {
      absl::StatusOr<HostTensor> t = ReadTensor(outputs[i].value(), frame.payload);
      if (!t.ok()) return outputs[i].Error(Std(t.status().message()));
      values.push_back(*std::move(t));
    }
    reply.runs.push_back(std::move(values));
  }
  return reply;
}

std::string EncodePhase(int64_t id, std::string_view phase) {
  Json j = Json::MakeObject();
  j["type"] = "phase";
  j["id"] = static_cast<long long>(id);
  j["name"] = std::string(phase);
  return EncodeFrame(j, "");
}

std::string EncodeShutdown() {
  Json j = Json::MakeObject();
  j["type"] = "shutdown";
  return EncodeFrame(j, "");
}

}  // namespace rk::repro
