#include "repro/backend/builtin_server.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/parser.h"
#include "compiler/options/compile_options.h"
#include "compiler/support/cuda_probe.h"
#include "compiler/support/version.h"

namespace rk::repro {
namespace {

using compiler::HostTensor;

absl::Status WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError(absl::StrCat("write: ", std::strerror(errno)));
    done += n;
  }
  return absl::OkStatus();
}

RunReply Failure(int64_t id, const char* kind, const absl::Status& status) {
  RunReply r;
  r.kind = RunReply::Kind::kFailure;
  r.id = id;
  r.failure_kind = kind;
  r.message = status.ToString();
  return r;
}

RunReply Handle(const RunRequest& request, int out_fd) {
  absl::StatusOr<compiler::Graph> graph = compiler::ParseInline(request.graph_text);
  if (!graph.ok()) return Failure(request.id, "compile_error", graph.status());
  compiler::CompileOptions options;
  if (absl::Status s = options.Set("device", request.device); !s.ok()) {
    return Failure(request.id, "unsupported", s);
  }
  for (const auto& [key, value] : request.options) {
    if (key == "device" || key == "backend" || key == "backend_options") {
      return Failure(request.id, "compile_error",
                     absl::InvalidArgumentError(absl::StrCat("option '", key, "' is not mine")));
    }
    if (absl::Status s = options.Set(key, value); !s.ok()) {
      return Failure(request.id, "compile_error", s);
    }
  }
  std::vector<HostTensor> inputs;
  for (const auto& [name, tensor] : request.inputs) inputs.push_back(tensor);
  (void)WriteAll(out_fd, EncodePhase(request.id, "compile"));
  absl::Time start = absl::Now();
  absl::StatusOr<compiler::Executable> exe = compiler::Compile(*graph, options);
  const double compile_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (!exe.ok()) return Failure(request.id, "compile_error", exe.status());
  (void)WriteAll(out_fd, EncodePhase(request.id, "run"));
  RunReply reply;
  reply.id = request.id;
  reply.compile_seconds = compile_seconds;
  start = absl::Now();
  for (int r = 0; r < request.runs; ++r) {
    absl::StatusOr<std::vector<HostTensor>> out = exe->Run(inputs);
    if (!out.ok()) return Failure(request.id, "runtime_error", out.status());
    reply.runs.push_back(*std::move(out));
  }
  reply.run_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return reply;
}

}  // namespace

BackendHello BuiltinBackendHello() {
  BackendHello hello;
  hello.name = "reprokit";
  hello.version = absl::StrCat("reprokit ", compiler::ReprokitVersion(), " (",
                               compiler::GitCommit(), ")");
  hello.devices = {"cpu"};
  if (compiler::ProbeCuda().usable) hello.devices.push_back("cuda");
  hello.dtypes = {"f16", "bf16", "f32", "f64", "i32", "i64", "bool"};
  hello.ops = {"*"};
  for (const auto& [key, value] : compiler::CompileOptions().Items()) {
    if (key == "device" || key == "backend" || key == "backend_options") continue;
    hello.options.push_back({key, value, "a compile option of the built-in compiler "
                                         "(docs/COMPILER.md)"});
  }
  return hello;
}

absl::Status ServeBuiltinBackend(int in_fd, int out_fd) {
  if (absl::Status s = WriteAll(out_fd, EncodeFrame(HelloToJson(BuiltinBackendHello()), ""));
      !s.ok()) {
    return s;
  }
  std::string buffer;
  char chunk[1 << 16];
  while (true) {
    absl::StatusOr<std::optional<Frame>> frame = TakeFrame(buffer, uint64_t{1} << 40);
    if (!frame.ok()) return frame.status();
    if (!frame->has_value()) {
      const ssize_t n = ::read(in_fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return absl::OkStatus();  // end of input: shut down
      buffer.append(chunk, n);
      continue;
    }
    const Frame& f = **frame;
    if (f.type() == "shutdown") return absl::OkStatus();
    if (f.type() != "run") {
      return absl::InvalidArgumentError(absl::StrCat("unexpected message \"", f.type(), "\""));
    }
    absl::StatusOr<RunRequest> request = DecodeRunRequest(f);
    if (!request.ok()) return request.status();
    if (absl::Status s = WriteAll(out_fd, EncodeRunReply(Handle(*request, out_fd))); !s.ok()) {
      return s;
    }
  }
}

}  // namespace rk::repro
