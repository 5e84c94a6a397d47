// The oracle: compiles and runs a graph, computes the references, and judges.
//
// For one (graph, inputs, options):
//   0. after the compiler ran (or failed, or crashed): when the references
//      meet undefined behavior (compiler/reference/undefined_behavior.h) the
//      verdict is cannot_judge "undefined behavior at %node: what", whatever
//      the compiler did (docs/DIFFERENTIAL.md);
//   1. compile (a Status error is a compile_error verdict);
//   2. run the executable twice: results that differ bitwise are a
//      nondeterministic verdict (checked before accuracy, so run-to-run noise
//      is never mistaken for an accuracy bug);
//   3. run the reference interpreter in the graph's own dtypes ("native") and
//      in fp64;
//   4. judge every output with the accuracy policy (accuracy.h); any failing
//      output makes an accuracy verdict, else any cannot-judge output makes
//      cannot_judge;
//   5. for accuracy failures, recompile the graph promoted to f64 and compare
//      it with the fp64 reference: still wrong -> "miscompile" (logic:
//      indexing, fusion, folding), right -> "precision" (accumulation order,
//      low-precision compute, approximate math).
//
// A graph with inputs marked `grad` is judged as its joint graph, forward
// outputs and gradients (gradients.h).
//
// Oracle runs this in a worker subprocess (repro/isolate) by default, so a
// crash, abort or hang inside the compiler or the generated code becomes a
// crash or timeout verdict; JudgeInProcess runs it in the calling process.
//
// Tested by repro/oracle/oracle_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_ORACLE_H_
#define REPROKIT_REPRO_ORACLE_ORACLE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/isolate/worker_pool.h"
#include "repro/oracle/backend_runner.h"
#include "repro/oracle/program_runs.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct OracleOptions {
  std::string policy = "torch";  // FindAccuracyPolicy name
  AccuracyOptions accuracy;
  // Recompile in fp64 to tell miscompiles from precision problems.
  bool classify_accuracy = true;
  // Compiled runs compared for nondeterminism (1 disables the check).
  int runs = 2;
};

// Checks that `inputs` match the graph's signature and the options parse;
// InvalidArgument otherwise. Everything after that is a verdict.
absl::Status ValidateRequest(const compiler::Graph& graph,
                             absl::Span<const compiler::HostTensor> inputs,
                             const compiler::CompileOptions& options,
                             const OracleOptions& oracle_options);

// Compiles and runs a graph `runs` times with whichever compiler is judged.
using RunProgram = std::function<absl::StatusOr<ProgramRuns>(
    const compiler::Graph&, absl::Span<const compiler::HostTensor>, int runs)>;

// Steps 2-5 above over `run_program` (step 1 and the runs), in the calling
// process: what the built-in path runs in a worker, and the external
// backends' path runs beside their backend processes.
absl::StatusOr<Verdict> JudgeWith(const compiler::Graph& graph,
                                  absl::Span<const compiler::HostTensor> inputs,
                                  const compiler::CompileOptions& options,
                                  const OracleOptions& oracle_options,
                                  const RunProgram& run_program);

// The whole judgement in the calling process. A crash in the compiler or the
// generated code takes the process down: use Oracle for untrusted inputs.
absl::StatusOr<Verdict> JudgeInProcess(const compiler::Graph& graph,
                                       absl::Span<const compiler::HostTensor> inputs,
                                       const compiler::CompileOptions& options,
                                       const OracleOptions& oracle_options);

class Oracle {
 public:
  struct Config {
    OracleOptions options;
    IsolationLimits limits;  // default: 60 s, 8 GiB, no core dumps
    int workers = 1;         // concurrent isolated judgements
    bool isolate = true;     // false: judge in process (trusted compiler only)
  };

  // Starts the worker pool. Mind the fork rule in worker_pool.h: create the
  // oracle before starting threads.
  static absl::StatusOr<std::unique_ptr<Oracle>> Create(const Config& config);

  // Thread-safe. Bad input (inputs not matching the graph, unparsable
  // options) is an InvalidArgument; every compiler behaviour is a Verdict.
  // Options naming an external backend (options.backend) are judged with
  // that backend's processes (backend_runner.h, started on first use, as
  // many as `workers`); its errors (missing, broken protocol) are statuses.
  absl::StatusOr<Verdict> Judge(const compiler::Graph& graph,
                                absl::Span<const compiler::HostTensor> inputs,
                                const compiler::CompileOptions& options);
  // The same with other judging options than the configured ones (the
  // minifier classifies accuracy failures only at the end: minify_bundle.h).
  absl::StatusOr<Verdict> Judge(const compiler::Graph& graph,
                                absl::Span<const compiler::HostTensor> inputs,
                                const compiler::CompileOptions& options,
                                const OracleOptions& oracle_options);

  // The hello of an external backend (starting it if needed).
  absl::StatusOr<BackendHello> Backend(const std::string& spec);

  const Config& config() const { return config_; }
  int64_t calls() const { return calls_.load(); }

 private:
  explicit Oracle(Config config) : config_(std::move(config)) {}
  Verdict FromOutcome(const JobOutcome& outcome) const;

  absl::StatusOr<BackendRunner*> Runner(const std::string& spec);

  Config config_;
  std::unique_ptr<WorkerPool> pool_;
  std::mutex runners_mutex_;
  std::map<std::string, std::unique_ptr<BackendRunner>> runners_;
  std::atomic<int64_t> calls_{0};
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_ORACLE_H_
