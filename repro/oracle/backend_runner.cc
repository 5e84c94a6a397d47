#include "repro/oracle/backend_runner.h"

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/printer.h"
#include "repro/backend/applicability.h"
#include "repro/backend/graph_json.h"
#include "repro/backend/pool_client.h"
#include "repro/backend/pool_wire.h"
#include "repro/oracle/signature.h"

namespace rk::repro {
namespace {

using compiler::Graph;
using compiler::HostTensor;

std::mutex exporter_mutex;
BackendRunner::OnnxExporter* onnx_exporter = nullptr;

Verdict Ended(VerdictKind kind, Signature signature, std::string message) {
  Verdict v;
  v.kind = kind;
  v.signature = std::move(signature);
  v.message = std::move(message);
  return v;
}

// The last lines of a backend's stderr, for a one-line message.
std::string LastLines(const std::string& tail) {
  std::vector<std::string> lines = absl::StrSplit(tail, '\n', absl::SkipWhitespace());
  if (lines.empty()) return "";
  const size_t from = lines.size() > 3 ? lines.size() - 3 : 0;
  std::string last = absl::StrJoin(lines.begin() + from, lines.end(), " | ");
  if (last.size() > 400) last = "..." + last.substr(last.size() - 400);
  return absl::StrCat("; stderr: ", last);
}

// The first output, in any run, whose dtype or shape is not the graph's: a
// shape_mismatch verdict naming both types.
std::optional<Verdict> WrongType(const Graph& graph,
                                 const std::vector<compiler::TensorType>& declared,
                                 const std::vector<std::vector<HostTensor>>& runs,
                                 const std::string& who) {
  for (const std::vector<HostTensor>& run : runs) {
    for (size_t i = 0; i < run.size() && i < declared.size(); ++i) {
      if (run[i].type() == declared[i]) continue;
      const compiler::NodeId id = graph.outputs()[i];
      const std::string op(compiler::OpName(graph.node(id).op));
      const std::string want = declared[i].ToString();
      const std::string got = run[i].type().ToString();
      Verdict v = Ended(VerdictKind::kShapeMismatch, ShapeMismatchSignature(op, want, got),
                        absl::StrCat(who, " returned output ", i, " (%", graph.DisplayName(id),
                                     ", ", op, ") as ", got, "; the graph declares ", want));
      OutputVerdict o;
      o.index = static_cast<int>(i);
      o.node = graph.DisplayName(id);
      o.op = op;
      o.dtype = std::string(compiler::DTypeName(declared[i].dtype));
      v.outputs.push_back(std::move(o));
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace

BackendRunner::OnnxExporter BackendRunner::GetOnnxExporter() {
  std::lock_guard<std::mutex> lock(exporter_mutex);
  return onnx_exporter != nullptr ? *onnx_exporter : OnnxExporter();
}

void BackendRunner::SetOnnxExporter(OnnxExporter exporter) {
  std::lock_guard<std::mutex> lock(exporter_mutex);
  delete onnx_exporter;
  onnx_exporter = new OnnxExporter(std::move(exporter));
}

absl::StatusOr<std::unique_ptr<BackendRunner>> BackendRunner::Create(const std::string& spec,
                                                                     int processes,
                                                                     const BackendLimits& limits) {
  absl::StatusOr<BackendCommand> command = LocateBackend(spec);
  if (!command.ok()) return command.status();
  std::unique_ptr<BackendRunner> runner(new BackendRunner(*command, limits));
  processes = std::max(1, processes);
  std::unique_ptr<BackendChannel> first;
  ChannelPool::Factory factory;
  const char* pool_env = std::getenv("REPROKIT_BACKEND_POOL");
  absl::StatusOr<std::string> socket = BackendPoolSocket(*command, limits.memory_bytes, /*make_folder=*/false);
  if ((pool_env == nullptr || std::string(pool_env) != "off") && socket.ok()) {
    absl::StatusOr<std::unique_ptr<PoolConnection>> connection =
        PoolConnection::Connect(*socket, limits.start_timeout);
    if (connection.ok()) {
      runner->pool_socket_ = *socket;
      first = *std::move(connection);
      factory = [path = *socket, allowance = limits.start_timeout]()
          -> absl::StatusOr<std::unique_ptr<BackendChannel>> {
        absl::StatusOr<std::unique_ptr<PoolConnection>> c = PoolConnection::Connect(path, allowance);
        if (!c.ok()) return c.status();
        return std::unique_ptr<BackendChannel>(*std::move(c));
      };
    }
  }
  if (first == nullptr) {
    absl::StatusOr<std::unique_ptr<BackendProcess>> process =
        BackendProcess::Start(*command, limits);
    if (!process.ok()) return process.status();
    first = *std::move(process);
    factory = [command = *command, limits]() -> absl::StatusOr<std::unique_ptr<BackendChannel>> {
      absl::StatusOr<std::unique_ptr<BackendProcess>> p = BackendProcess::Start(command, limits);
      if (!p.ok()) return p.status();
      return std::unique_ptr<BackendChannel>(*std::move(p));
    };
  }
  runner->hello_ = first->hello();
  if (runner->hello_.Wants("onnx")) {
    std::lock_guard<std::mutex> lock(exporter_mutex);
    if (onnx_exporter == nullptr) {
      return absl::UnavailableError(absl::StrCat(
          "backend '", spec, "' asks for ONNX models, and this build of reprokit cannot "
          "export ONNX"));
    }
  }
  runner->channels_ = std::make_unique<ChannelPool>(std::move(factory), processes, std::move(first));
  if (processes > 1) runner->channels_->Prestart();
  return runner;
}

absl::Status BackendRunner::CheckOptions(const compiler::CompileOptions& options) const {
  for (const std::string& item : options.backend_options) {
    const std::string key = item.substr(0, item.find(':'));
    if (hello_.FindOption(key) != nullptr) continue;
    std::vector<std::string> declared;
    for (const BackendOptionInfo& o : hello_.options) declared.push_back(o.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "backend '", hello_.name, "' has no option '", key, "' (it declares: ",
        declared.empty() ? "none" : absl::StrJoin(declared, ", "), ")"));
  }
  if (!hello_.SupportsDevice(options.device)) {
    return absl::UnavailableError(absl::StrCat("backend '", hello_.name, "' has no device '",
                                               options.device, "' (it has: ",
                                               absl::StrJoin(hello_.devices, ", "), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ProgramRuns> BackendRunner::Run(const Graph& graph,
                                               absl::Span<const HostTensor> inputs,
                                               const compiler::CompileOptions& options,
                                               int runs) {
  ProgramRuns result;
  // What the backend did not declare (op, dtype, op on dtype) is not sent.
  if (std::optional<NotApplicable> no = CheckApplicable(hello_, graph); no.has_value()) {
    result.ended = Ended(VerdictKind::kCannotJudge, {VerdictKind::kCannotJudge, ""},
                         no->Message(hello_.name));
    return result;
  }
  RunRequest request;
  request.id = next_id_++;
  request.device = options.device;
  request.runs = runs;
  for (const std::string& item : options.backend_options) {
    const size_t colon = item.find(':');
    request.options.emplace_back(item.substr(0, colon), item.substr(colon + 1));
  }
  request.graph_text = compiler::PrintInline(graph);
  std::string json_payload;
  if (hello_.Wants("json")) request.graph_json = GraphToJson(graph, json_payload);
  if (hello_.Wants("onnx")) {
    OnnxExporter exporter;
    {
      std::lock_guard<std::mutex> lock(exporter_mutex);
      if (onnx_exporter != nullptr) exporter = *onnx_exporter;
    }
    if (!exporter) {
      return absl::UnavailableError("this build of reprokit cannot export ONNX");
    }
    absl::StatusOr<std::string> model = exporter(graph);
    if (!model.ok()) {
      result.ended = Ended(VerdictKind::kCannotJudge, {VerdictKind::kCannotJudge, ""},
                           absl::StrCat("cannot export the graph to ONNX for backend '",
                                        hello_.name, "': ", model.status().message()));
      return result;
    }
    request.onnx = *std::move(model);
  }
  const std::vector<compiler::NodeId> params = graph.inputs();
  for (size_t i = 0; i < params.size() && i < inputs.size(); ++i) {
    request.inputs.emplace_back(graph.node(params[i]).name.empty()
                                    ? graph.DisplayName(params[i])
                                    : graph.node(params[i]).name,
                                inputs[i]);
  }
  std::vector<compiler::TensorType> outputs;
  for (compiler::NodeId id : graph.outputs()) outputs.push_back(graph.type(id));
  const std::string frame = EncodeRunRequest(request, json_payload);

  absl::StatusOr<std::unique_ptr<BackendChannel>> channel = channels_->Acquire();
  if (!channel.ok()) return channel.status();
  BackendOutcome outcome = (*channel)->Run(frame, request.id, outputs, runs, limits_.timeout);
  channels_->Release(*std::move(channel));

  const std::string phase = outcome.phase.empty() ? "backend" : outcome.phase;
  const std::string who = absl::StrCat("backend '", hello_.name, "'");
  switch (outcome.kind) {
    case BackendOutcome::Kind::kTimedOut:
      result.ended = Ended(VerdictKind::kTimeout, TimeoutSignature(phase),
                           absl::StrCat(who, " timed out after ",
                                        absl::FormatDuration(limits_.timeout), " in ", phase));
      result.ended->stderr_tail = outcome.stderr_tail;
      return result;
    case BackendOutcome::Kind::kCrashed: {
      const char* name = sigabbrev_np(outcome.signal);
      const std::string signal =
          name ? absl::StrCat("SIG", name) : absl::StrCat("SIG", outcome.signal);
      result.ended = Ended(VerdictKind::kCrash, CrashSignature(signal, {}, phase),
                           absl::StrCat(who, " died from ", signal, " in ", phase,
                                        LastLines(outcome.stderr_tail)));
      result.ended->stderr_tail = outcome.stderr_tail;
      return result;
    }
    case BackendOutcome::Kind::kExited:
      result.ended = Ended(VerdictKind::kCrash, CrashSignature("EXIT", {}, phase),
                           absl::StrCat(who, " ", outcome.what, " in ", phase,
                                        LastLines(outcome.stderr_tail)));
      result.ended->stderr_tail = outcome.stderr_tail;
      return result;
    case BackendOutcome::Kind::kProtocolError:
      return absl::UnavailableError(absl::StrCat(who, " broke the protocol: ", outcome.what,
                                                 LastLines(outcome.stderr_tail)));
    case BackendOutcome::Kind::kReply:
      break;
  }
  const RunReply& reply = outcome.reply;
  result.compile_seconds = reply.compile_seconds;
  result.run_seconds = reply.run_seconds;
  if (reply.kind == RunReply::Kind::kFailure) {
    if (reply.failure_kind == "unsupported") {
      result.ended = Ended(VerdictKind::kCannotJudge, {VerdictKind::kCannotJudge, ""},
                           absl::StrCat(who, " cannot take this graph: ", reply.message));
    } else {
      result.ended = Ended(VerdictKind::kCompileError,
                           CompileErrorSignature(reply.failure_kind, reply.message),
                           absl::StrCat(reply.failure_kind == "runtime_error" ? "run" : "compile",
                                        ": ", who, ": ", reply.message));
    }
    result.ended->stderr_tail = outcome.stderr_tail;
    return result;
  }
  if (std::optional<Verdict> wrong = WrongType(graph, outputs, reply.runs, who)) {
    result.ended = *std::move(wrong);
    result.ended->stderr_tail = outcome.stderr_tail;
    return result;
  }
  result.runs = reply.runs;
  return result;
}

}  // namespace rk::repro
