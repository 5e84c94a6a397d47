#include "repro/oracle/oracle.h"

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/promote.h"
#include "repro/isolate/job_limits.h"
#include "repro/isolate/phase.h"
#include "repro/oracle/computation_precision.h"
#include "repro/oracle/failure_site.h"
#include "repro/oracle/gradients.h"
#include "repro/oracle/memory_budget.h"
#include "repro/oracle/operand_rounding.h"
#include "repro/oracle/planted_fault.h"
#include "repro/oracle/preflight.h"
#include "repro/oracle/wire.h"
#include "repro/oracle/backend_runner.h"

namespace rk::repro {
namespace {

using compiler::CompileOptions;
using compiler::Graph;
using compiler::HostTensor;

double SecondsSince(absl::Time start) { return absl::ToDoubleSeconds(absl::Now() - start); }

std::string StatusCodeName(const absl::Status& s) {
  return std::string(absl::StatusCodeToString(s.code()));
}

Verdict CompileErrorVerdict(const absl::Status& status, std::string_view phase) {
  Verdict v;
  v.kind = VerdictKind::kCompileError;
  v.signature = CompileErrorSignature(StatusCodeName(status), std::string(status.message()));
  v.message = absl::StrCat(std::string(phase), ": ", status.ToString());
  return v;
}

// The outputs whose bytes differ between two runs.
std::vector<int> DifferingOutputs(const std::vector<HostTensor>& a,
                                  const std::vector<HostTensor>& b) {
  std::vector<int> differing;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].BitwiseEqual(b[i])) differing.push_back(static_cast<int>(i));
  }
  return differing;
}

OutputVerdict Describe(const Graph& graph, int index) {
  OutputVerdict o;
  o.index = index;
  compiler::NodeId id = graph.outputs()[index];
  o.node = graph.DisplayName(id);
  o.op = std::string(compiler::OpName(graph.node(id).op));
  o.dtype = std::string(compiler::DTypeName(graph.type(id).dtype));
  return o;
}

// Compiles the graph promoted to f64 and compares with the fp64 reference:
// "miscompile" if it still disagrees, "precision" if it agrees.
std::string ClassifyAccuracy(const Graph& graph, absl::Span<const HostTensor> inputs,
                             const CompileOptions& options, const RunProgram& run_program,
                             const std::vector<HostTensor>& fp64_outputs, int failing_output) {
  // The fp64 recompile may not run the faulty code at all (a cast fault on
  // an f64 cast becomes f64->f64 and vanishes): a planted fault stays a miscompile.
  if (PlantsValueFault(graph, options)) return "miscompile";
  ReportPhase("fp64_recompile");
  absl::StatusOr<Graph> promoted = compiler::PromoteToF64(graph);
  if (!promoted.ok()) return "unknown";
  std::vector<HostTensor> promoted_inputs;
  for (const HostTensor& t : inputs) {
    promoted_inputs.push_back(compiler::IsFloat(t.dtype()) ? t.ConvertTo(compiler::DType::kF64)
                                                           : t);
  }
  absl::StatusOr<ProgramRuns> out = run_program(*promoted, promoted_inputs, 1);
  if (!out.ok() || out->ended || out->runs.empty()) return "unknown";
  const AccuracyPolicy* strict = FindAccuracyPolicy("strict");
  AccuracyOptions tight;
  tight.tol = 1e-6;
  OutputMetrics m =
      strict->Judge(out->runs[0][failing_output], fp64_outputs[failing_output], nullptr, tight);
  return m.judgement == Judgement::kPass ? "precision" : "miscompile";
}

// The built-in compiler: compile once, run `runs` times.
absl::StatusOr<ProgramRuns> RunBuiltin(const Graph& graph, absl::Span<const HostTensor> inputs,
                                       const CompileOptions& options, int runs) {
  ProgramRuns result;
  ReportPhase("compile");
  absl::Time start = absl::Now();
  absl::StatusOr<compiler::Executable> exe = compiler::Compile(graph, options);
  result.compile_seconds = SecondsSince(start);
  // A device that cannot be used (no GPU, a driver that fails to initialize)
  // is the machine's problem: an error, never a compile_error verdict.
  if (absl::IsUnavailable(exe.status())) return exe.status();
  if (!exe.ok()) {
    result.ended = CompileErrorVerdict(exe.status(), "compile");
    return result;
  }
  ReportPhase("run");
  start = absl::Now();
  for (int r = 0; r < runs; ++r) {
    absl::StatusOr<std::vector<HostTensor>> out = exe->Run(inputs);
    if (absl::IsUnavailable(out.status())) return out.status();
    if (!out.ok()) {
      result.ended = CompileErrorVerdict(out.status(), "run");
      return result;
    }
    result.runs.push_back(*std::move(out));
  }
  result.run_seconds = SecondsSince(start);
  return result;
}

}  // namespace

absl::Status ValidateRequest(const Graph& graph, absl::Span<const HostTensor> inputs,
                             const CompileOptions& options, const OracleOptions& oracle_options) {
  if (FindAccuracyPolicy(oracle_options.policy) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown accuracy policy '",
                                                   oracle_options.policy,
                                                   "' (expected torch, strict or cosine)"));
  }
  std::vector<compiler::NodeId> params = graph.inputs();
  if (params.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "graph @%s takes %d inputs, %d given", graph.name(), params.size(), inputs.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (inputs[i].type() != graph.type(params[i])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "input %%%s: expected %s, given %s", graph.DisplayName(params[i]),
          graph.type(params[i]).ToString(), inputs[i].type().ToString()));
    }
  }
  absl::StatusOr<CompileOptions> reparsed = CompileOptions::Parse(options.ToString());
  if (!reparsed.ok()) return reparsed.status();
  // A fault typo or a missing GPU is the request's or the machine's problem,
  // never a compile_error verdict.
  return Preflight(options);
}

absl::StatusOr<Verdict> JudgeInProcess(const Graph& graph, absl::Span<const HostTensor> inputs,
                                       const CompileOptions& options,
                                       const OracleOptions& oracle_options) {
  if (absl::Status s = ValidateRequest(graph, inputs, options, oracle_options); !s.ok()) return s;
  return JudgeWith(graph, inputs, options, oracle_options,
                   [&](const Graph& g, absl::Span<const HostTensor> in, int runs) {
                     return RunBuiltin(g, in, options, runs);
                   });
}

namespace {

// What one judgement compares: the graph the compiler runs, the graph the
// references evaluate (the same one unless gradients are judged:
// gradients.h), and the forward graph the user wrote, for naming.
struct JudgedGraphs {
  const Graph& compiled;
  const Graph& reference;
  const Graph& forward;
  const GradientJudgement* gradients = nullptr;
};

// The input an output is the gradient of, or "" for a forward output.
std::string GradientOf(const JudgedGraphs& g, int output) {
  if (g.gradients == nullptr) return "";
  for (const compiler::autodiff::JointGraph::Gradient& grad : g.gradients->compiled.gradients) {
    if (grad.output == output) return grad.name;
  }
  return "";
}

absl::StatusOr<Verdict> JudgeGraphs(const JudgedGraphs& g, absl::Span<const HostTensor> inputs,
                                    const CompileOptions& options,
                                    const OracleOptions& oracle_options,
                                    const RunProgram& run_program) {
  const Graph& graph = g.compiled;
  Verdict v;
  v.policy = oracle_options.policy;
  absl::StatusOr<ProgramRuns> program = run_program(graph, inputs, std::max(1, oracle_options.runs));
  if (!program.ok()) return program.status();
  v.compile_seconds = program->compile_seconds;
  v.run_seconds = program->run_seconds;
  // The references first: a graph with undefined behavior (integer division
  // by zero, signed overflow, ...: compiler/reference/undefined_behavior.h)
  // cannot be judged, whatever the compiler did with it, crash and compile
  // error included; nor can it be nondeterministic.
  ReportPhase("reference");
  const absl::Time start = absl::Now();
  absl::StatusOr<compiler::EvalResult> native = compiler::Evaluate(g.reference, inputs);
  compiler::EvalOptions fp64_options;
  fp64_options.fp64 = true;
  absl::StatusOr<compiler::EvalResult> fp64 =
      native.ok() ? compiler::Evaluate(g.reference, inputs, fp64_options) : native;
  v.reference_seconds = SecondsSince(start);
  const compiler::UndefinedBehavior* undefined =
      native.ok() && native->undefined.has_value() ? &*native->undefined
      : fp64.ok() && fp64->undefined.has_value()   ? &*fp64->undefined
                                                   : nullptr;
  if (undefined != nullptr) {
    v.kind = VerdictKind::kCannotJudge;
    v.signature = {VerdictKind::kCannotJudge, ""};
    v.message = undefined->Message();
    return v;
  }
  if (program->ended) {
    Verdict e = *std::move(program->ended);
    e.policy = oracle_options.policy;
    e.compile_seconds = v.compile_seconds;
    e.run_seconds = v.run_seconds;
    e.reference_seconds = v.reference_seconds;
    return e;
  }
  if (!native.ok()) return native.status();
  if (!fp64.ok()) return fp64.status();
  auto describe = [&](int i) {
    OutputVerdict o = Describe(graph, i);
    o.gradient_of = GradientOf(g, i);
    return o;
  };
  const std::vector<std::vector<HostTensor>>& runs = program->runs;
  for (size_t r = 1; r < runs.size(); ++r) {
    if (std::vector<int> differing = DifferingOutputs(runs[0], runs[r]); !differing.empty()) {
      const FailureSite site = LocateNondeterminism(graph, options, differing);
      const int i = site.output;
      OutputVerdict o = describe(i);
      v.kind = VerdictKind::kNondeterministic;
      v.signature = NondeterministicSignature(site.op, site.dtype);
      v.message = absl::StrFormat("output %d (%s, %s) differs between two runs", i,
                                  OutputLabel(o), o.op);
      if (site.planted) {
        absl::StrAppendFormat(&v.message, " (from the planted %s fault)", site.op);
      }
      v.outputs.push_back(std::move(o));
      return v;
    }
  }

  const AccuracyPolicy* policy = FindAccuracyPolicy(oracle_options.policy);
  const std::vector<compiler::DType> precisions = OutputPrecisions(g.reference);
  int first_unjudged = -1;
  std::vector<int> failing;
  std::vector<HostTensor> fp64_values;  // the fp64 run's intermediates, when needed
  for (int i = 0; i < static_cast<int>(runs[0].size()); ++i) {
    OutputVerdict o = describe(i);
    const HostTensor& result = runs[0][i];
    const HostTensor* ref64 = compiler::IsFloat(result.dtype()) ? &fp64->outputs[i] : nullptr;
    AccuracyOptions accuracy = oracle_options.accuracy;
    accuracy.computed_in = precisions[i];
    o.metrics = policy->Judge(result, native->outputs[i], ref64, accuracy);
    if (o.metrics.judgement == Judgement::kFail && ref64 != nullptr &&
        compiler::IsLowPrecision(accuracy.computed_in)) {
      // Measured only for a failing bf16/f16 output: it needs the fp64 run's
      // intermediates, which the common passing case never pays for.
      if (fp64_values.empty()) {
        compiler::EvalOptions record = fp64_options;
        record.record_intermediates = true;
        absl::StatusOr<compiler::EvalResult> all = compiler::Evaluate(g.reference, inputs, record);
        if (!all.ok()) return all.status();
        fp64_values = std::move(all->values);
      }
      absl::StatusOr<double> moved =
          OperandRoundingRms(g.reference, fp64_values, g.reference.outputs()[i]);
      if (!moved.ok()) return moved.status();
      if (*moved > 0) {
        accuracy.operand_rounding_rms = *moved;
        o.metrics = policy->Judge(result, native->outputs[i], ref64, accuracy);
      }
    }
    if (o.metrics.judgement == Judgement::kFail) failing.push_back(i);
    if (o.metrics.judgement == Judgement::kCannotJudge && first_unjudged < 0) first_unjudged = i;
    v.outputs.push_back(std::move(o));
  }
  if (!failing.empty()) {
    // Named where the error started, not where it surfaced (failure_site.h);
    // a planted backward-only fault names its forward op (gradients.h).
    FailureSite site;
    const bool only_gradients =
        g.gradients != nullptr && failing.front() >= g.gradients->compiled.num_forward_outputs;
    std::optional<PlantedVjpSite> vjp;
    if (only_gradients) vjp = FindPlantedVjpSite(g.forward, options);
    if (vjp.has_value()) {
      site = {failing.front(), vjp->op, vjp->dtype, /*planted=*/true};
    } else {
      site = LocateAccuracyFailure(graph, options, failing);
    }
    const int first_fail = site.output;
    const OutputVerdict& o = v.outputs[first_fail];
    v.kind = VerdictKind::kAccuracy;
    if (!oracle_options.classify_accuracy) {
      v.accuracy_subkind = "unknown";
    } else if (vjp.has_value()) {
      v.accuracy_subkind = "miscompile";  // the backward itself is wrong
    } else {
      v.accuracy_subkind =
          ClassifyAccuracy(graph, inputs, options, run_program, fp64->outputs, first_fail);
    }
    v.signature = o.gradient_of.empty()
                      ? AccuracySignature(v.accuracy_subkind, site.op, site.dtype)
                      : GradientAccuracySignature(v.accuracy_subkind, site.op, site.dtype);
    v.message = absl::StrFormat("output %d (%s = %s, %s): %s", first_fail, OutputLabel(o), o.op,
                                o.dtype, o.metrics.reason);
    if (site.planted) {
      absl::StrAppendFormat(&v.message, " (from the planted %s%s fault)",
                            vjp.has_value() ? "vjp:" : "", site.op);
    }
  } else if (first_unjudged >= 0) {
    v.kind = VerdictKind::kCannotJudge;
    v.signature = {VerdictKind::kCannotJudge, ""};
    v.message = absl::StrFormat("output %d: %s", first_unjudged,
                                v.outputs[first_unjudged].metrics.reason);
  } else {
    v.kind = VerdictKind::kPass;
    v.message = g.gradients == nullptr ? "every output matches the reference"
                                       : "every output and gradient matches the reference";
  }
  return v;
}

}  // namespace

absl::StatusOr<Verdict> JudgeWith(const Graph& graph, absl::Span<const HostTensor> inputs,
                                  const CompileOptions& options,
                                  const OracleOptions& oracle_options,
                                  const RunProgram& run_program) {
  if (!HasGradientMarks(graph)) {
    return JudgeGraphs({graph, graph, graph}, inputs, options, oracle_options, run_program);
  }
  absl::StatusOr<GradientJudgement> gradients = PrepareGradients(graph, inputs, options);
  if (!gradients.ok()) return gradients.status();
  return JudgeGraphs({gradients->compiled.graph, gradients->reference, graph, &*gradients},
                     gradients->inputs, options, oracle_options, run_program);
}

absl::StatusOr<std::unique_ptr<Oracle>> Oracle::Create(const Config& config) {
  if (FindAccuracyPolicy(config.options.policy) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown accuracy policy '", config.options.policy, "'"));
  }
  std::unique_ptr<Oracle> oracle(new Oracle(config));
  if (!config.isolate) return oracle;
  // The handler decodes a request and judges it inside the worker.
  JobHandler handler = [](std::string_view bytes) -> absl::StatusOr<std::string> {
    absl::StatusOr<OracleRequest> q = DecodeRequest(bytes);
    if (!q.ok()) return q.status();
    absl::StatusOr<Graph> graph = compiler::ParseInline(q->graph_text);
    if (!graph.ok()) return graph.status();
    absl::StatusOr<CompileOptions> options = CompileOptions::Parse(q->options_text);
    if (!options.ok()) return options.status();
    // The CUDA driver reserves far more address space than it uses.
    if (options->device == "cuda") LiftAddressSpaceLimit();
    OracleOptions oo;
    oo.policy = q->policy;
    oo.accuracy.tol = q->tol;
    oo.accuracy.compare_non_float = q->compare_non_float;
    oo.classify_accuracy = q->classify_accuracy;
    oo.runs = q->runs;
    absl::StatusOr<Verdict> v = JudgeInProcess(*graph, q->inputs, *options, oo);
    if (!v.ok()) return v.status();
    return EncodeVerdict(*v);
  };
  absl::StatusOr<std::unique_ptr<WorkerPool>> pool =
      WorkerPool::Create(std::max(1, config.workers), std::move(handler), config.limits);
  if (!pool.ok()) return pool.status();
  oracle->pool_ = *std::move(pool);
  return oracle;
}

absl::StatusOr<BackendRunner*> Oracle::Runner(const std::string& spec) {
  std::lock_guard<std::mutex> lock(runners_mutex_);
  auto it = runners_.find(spec);
  if (it != runners_.end()) return it->second.get();
  BackendLimits limits;
  limits.timeout = config_.limits.timeout;
  limits.memory_bytes = config_.limits.memory_bytes;
  if (const char* start = std::getenv("REPROKIT_BACKEND_START_TIMEOUT"); start != nullptr) {
    double seconds = 0;
    if (absl::SimpleAtod(start, &seconds) && seconds > 0 && std::isfinite(seconds)) {
      limits.start_timeout = absl::Seconds(seconds);
    }
  }
  absl::StatusOr<std::unique_ptr<BackendRunner>> runner =
      BackendRunner::Create(spec, std::max(1, config_.workers), limits);
  if (!runner.ok()) return runner.status();
  BackendRunner* raw = runner->get();
  runners_.emplace(spec, *std::move(runner));
  return raw;
}

absl::StatusOr<BackendHello> Oracle::Backend(const std::string& spec) {
  absl::StatusOr<BackendRunner*> runner = Runner(spec);
  if (!runner.ok()) return runner.status();
  return (*runner)->hello();
}

absl::StatusOr<Verdict> Oracle::Judge(const Graph& graph, absl::Span<const HostTensor> inputs,
                                      const CompileOptions& options) {
  return Judge(graph, inputs, options, config_.options);
}

absl::StatusOr<Verdict> Oracle::Judge(const Graph& graph, absl::Span<const HostTensor> inputs,
                                      const CompileOptions& options,
                                      const OracleOptions& oracle_options) {
  ++calls_;
  if (absl::Status s = ValidateRequest(graph, inputs, options, oracle_options); !s.ok()) return s;
  if (absl::Status s = CheckMemoryBudget(graph, MemoryUse::kJudge, config_.limits.memory_bytes);
      !s.ok()) {
    return s;
  }
  if (options.external()) {
    absl::StatusOr<BackendRunner*> runner = Runner(options.backend);
    if (!runner.ok()) return runner.status();
    if (absl::Status s = (*runner)->CheckOptions(options); !s.ok()) return s;
    return JudgeWith(graph, inputs, options, oracle_options,
                     [&](const Graph& g, absl::Span<const HostTensor> in, int runs) {
                       return (*runner)->Run(g, in, options, runs);
                     });
  }
  if (!options.backend_options.empty()) {
    return absl::InvalidArgumentError(
        "backend_options are for an external backend; the built-in compiler takes compile "
        "options (docs/BACKENDS.md)");
  }
  if (!config_.isolate) return JudgeInProcess(graph, inputs, options, oracle_options);
  OracleRequest q;
  q.graph_text = compiler::PrintInline(graph);
  q.options_text = options.ToString();
  q.policy = oracle_options.policy;
  q.tol = oracle_options.accuracy.tol;
  q.compare_non_float = oracle_options.accuracy.compare_non_float;
  q.classify_accuracy = oracle_options.classify_accuracy;
  q.runs = oracle_options.runs;
  q.inputs.assign(inputs.begin(), inputs.end());
  JobOutcome outcome = pool_->Run(EncodeRequest(q));
  if (outcome.kind == JobOutcome::Kind::kOk) {
    absl::StatusOr<Verdict> v = DecodeVerdict(outcome.response);
    if (!v.ok()) return absl::InternalError(absl::StrCat("worker reply: ", v.status().message()));
    v->stderr_tail = outcome.stderr_tail;
    return v;
  }
  if (outcome.kind == JobOutcome::Kind::kError) return outcome.error;
  Verdict ended = FromOutcome(outcome);
  // A crash leaves no verdict from the worker's references: undefined
  // behavior in the graph still makes it unjudgeable (the reference is
  // trusted in this process; a timeout is not re-run here).
  if (ended.kind == VerdictKind::kCrash && !HasGradientMarks(graph)) {
    absl::StatusOr<compiler::EvalResult> native = compiler::Evaluate(graph, inputs);
    if (native.ok() && native->undefined.has_value()) {
      ended.kind = VerdictKind::kCannotJudge;
      ended.signature = {VerdictKind::kCannotJudge, ""};
      ended.message = native->undefined->Message();
    }
  }
  return ended;
}

Verdict Oracle::FromOutcome(const JobOutcome& outcome) const {
  Verdict v;
  v.policy = config_.options.policy;
  v.stderr_tail = outcome.stderr_tail;
  v.backtrace = outcome.backtrace;
  std::string phase = outcome.phase.empty() ? "start" : outcome.phase;
  switch (outcome.kind) {
    case JobOutcome::Kind::kTimedOut:
      v.kind = VerdictKind::kTimeout;
      v.signature = TimeoutSignature(phase);
      v.message = absl::StrCat("timed out after ",
                               absl::FormatDuration(config_.limits.timeout), " in ", phase);
      break;
    case JobOutcome::Kind::kCrashed: {
      const char* name = sigabbrev_np(outcome.signal);
      std::string signal = name ? absl::StrCat("SIG", name) : absl::StrCat("SIG", outcome.signal);
      v.kind = VerdictKind::kCrash;
      // Top frames when the stack could be symbolized, else the phase.
      v.signature = CrashSignature(signal, outcome.backtrace, phase);
      v.message = absl::StrCat("worker died from ", signal, " in ", phase);
      break;
    }
    case JobOutcome::Kind::kOutOfMemory:
      v.kind = VerdictKind::kCrash;
      v.signature = CrashSignature("OOM", {}, phase);
      v.message = absl::StrCat("out of memory in ", phase);
      break;
    default:
      v.kind = VerdictKind::kCrash;
      v.signature = CrashSignature("EXIT", {}, phase);
      v.message = absl::StrCat("worker lost in ", phase, ": ", outcome.error.ToString());
      break;
  }
  return v;
}

}  // namespace rk::repro
