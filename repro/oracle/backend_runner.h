// Judging an external backend (docs/BACKENDS.md): a pool of its processes,
// one per concurrent judgement, the first started at once and the others in
// the background, each restarted after it crashed or timed out; or, when a
// warm pool (`reprokit backend-pool`) serves the same backend, connections to
// it, so no process is started at all; a request's outcome becomes ProgramRuns the oracle
// judges like the built-in compiler's (crash, timeout, compile_error, or
// outputs; an output of another dtype or shape than the graph declares is a
// shape_mismatch verdict naming both types), and a graph with an op, dtype or
// device the backend did not declare is cannot_judge without being sent.
//
// Errors (never verdicts): the backend cannot be found or started, speaks
// another protocol version, or breaks the protocol in a reply (a frame that
// is not one, another number of runs or outputs than asked for: Unavailable
// or FailedPrecondition, naming the backend: the harness cannot test with it);
// options it did not declare (InvalidArgument, listing the declared ones).
//
// Tested by repro/oracle/backend_runner_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_BACKEND_RUNNER_H_
#define REPROKIT_REPRO_ORACLE_BACKEND_RUNNER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/backend/backend_process.h"
#include "repro/backend/channel_pool.h"
#include "repro/oracle/program_runs.h"

namespace rk::repro {

class BackendRunner {
 public:
  // How to make ONNX bytes for backends that ask for them (graph_formats
  // "onnx"); registered by the binary that links the exporter. Without one,
  // such a backend is Unavailable.
  using OnnxExporter = std::function<absl::StatusOr<std::string>(const compiler::Graph&)>;
  static void SetOnnxExporter(OnnxExporter exporter);
  // The registered exporter, or null.
  static OnnxExporter GetOnnxExporter();

  // Finds the backend and connects to its warm pool when one serves it
  // (unless $REPROKIT_BACKEND_POOL is "off"), else starts its first process
  // (for the hello) and the other `processes - 1` in the background.
  static absl::StatusOr<std::unique_ptr<BackendRunner>> Create(const std::string& spec,
                                                               int processes,
                                                               const BackendLimits& limits);

  const BackendHello& hello() const { return hello_; }
  const BackendCommand& command() const { return command_; }
  // The warm pool's socket when requests go to one, else "".
  const std::string& pool_socket() const { return pool_socket_; }

  // The options' backend_options are all declared, and the device is one the
  // backend has.
  absl::Status CheckOptions(const compiler::CompileOptions& options) const;

  // Thread-safe; up to `processes` requests run at once.
  absl::StatusOr<ProgramRuns> Run(const compiler::Graph& graph,
                                  absl::Span<const compiler::HostTensor> inputs,
                                  const compiler::CompileOptions& options, int runs);

 private:
  BackendRunner(BackendCommand command, BackendLimits limits)
      : command_(std::move(command)), limits_(limits) {}

  BackendCommand command_;
  BackendLimits limits_;
  BackendHello hello_;
  std::string pool_socket_;
  std::unique_ptr<ChannelPool> channels_;
  std::atomic<int64_t> next_id_{1};
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_BACKEND_RUNNER_H_
