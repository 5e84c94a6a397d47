// Triage: re-judges a (minimized) repro across the target's own knobs and
// other routes, and classifies the failure (docs/BACKENDS.md, "Triage").
//
// The probes (PlanProbes) are data: the configuration as recorded, the
// target's ordered optimization knob at every value (ONNX Runtime's
// graph_optimization_level disable..all, the built-in compiler's opt_level
// 0..2, Inductor's compile_backend aot_eager/inductor, jax_xla's jit
// false/true), every other device the target declares, the Inductor and XLA
// knobs the adapter declares (fallback_random, cpp.simdlen, triton.cudagraphs;
// xla_backend_optimization_level, xla_allow_excess_precision,
// xla_gpu_autotune_level, xla_gpu_enable_triton_gemm, xla_gpu_deterministic_ops),
// and for an
// external target the built-in compiler on the same device. Every verdict
// already carries the fp64 reference and the reference in the graph's own
// dtypes (the oracle judges against both), so those two routes are columns of
// every row rather than rows.
//
// Classify reads the table, in this order:
//   cannot judge           the recorded configuration is cannot_judge;
//   does not reproduce     it passes;
//   semantics difference   a documented difference in meaning is in play
//                          (NaN propagation of max/min, rounding of .5);
//   precision              the graph promoted to f64 is right (the oracle's
//                          accuracy subkind): the dtype's own rounding;
//   harness fault          the built-in compiler fails the same way (two
//                          compilers agree against our reference or rule);
//   provider-specific      another device of the target passes;
//   optimizer bug          the lowest level passes and some higher one fails
//                          ("fails only with optimizations from level L");
//   kernel bug             it fails at every level (or the target has none).
// A real failure of the target is one of the last three (IsRealFailure).
//
// Tested by repro/triage/triage_test.cc (classification over hand-made
// tables), repro/triage/xla_triage_test.cc (jax_xla's probes and classes) and
// tools/triage_cli_test.sh (the real binary).
#ifndef REPROKIT_REPRO_TRIAGE_TRIAGE_H_
#define REPROKIT_REPRO_TRIAGE_TRIAGE_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"
#include "repro/backend/protocol.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

enum class TriageClass {
  kOptimizerBug,
  kKernelBug,
  kProviderSpecific,
  kPrecision,
  kSemanticsDifference,
  kDoesNotReproduce,
  kHarnessFault,
  kCannotJudge,
};

// "optimizer bug", "kernel bug", ...
std::string_view TriageClassName(TriageClass c);
// Optimizer bug, kernel bug or provider-specific: a bug of the target.
bool IsRealFailure(TriageClass c);

// What a probe varies.
enum class ProbeGroup {
  kRecorded,  // the bundle's own configuration
  kLevel,     // the target's ordered optimization knob; `level` is its index
  kDevice,    // another device of the target
  kKnob,      // another option of the target
  kRoute,     // another compiler (the built-in one)
};

struct TriageProbe {
  ProbeGroup group = ProbeGroup::kRecorded;
  std::string label;  // "graph_optimization_level=basic", "device=cuda", "builtin"
  int level = -1;     // kLevel: 0 = no optimization
  compiler::CompileOptions options;
};

// The probes for a repro recorded with `recorded`; `hello` is the external
// target's (null for the built-in compiler).
std::vector<TriageProbe> PlanProbes(const compiler::CompileOptions& recorded,
                                    const BackendHello* hello);

struct TriageRow {
  TriageProbe probe;
  bool judged = false;  // false: `error` says why there is no verdict
  Verdict verdict;
  std::string error;
};

struct Triage {
  TriageClass cls = TriageClass::kCannotJudge;
  std::string explanation;  // one line, e.g. "fails only with optimizations from level basic"
  std::string target;       // "onnxruntime 1.30.0 (node)", "builtin"
  std::vector<TriageRow> rows;
};

// Classifies a judged table (rows[0] must be the recorded probe).
Triage Classify(const compiler::Graph& graph, std::vector<TriageRow> rows);

// Judges every probe with `judge` (a status is recorded as the row's error,
// not returned) and classifies.
using TriageJudge = std::function<absl::StatusOr<Verdict>(const compiler::CompileOptions&)>;
Triage RunTriage(const compiler::Graph& graph, const std::vector<TriageProbe>& probes,
                 const TriageJudge& judge);

// The evidence table and the class, for humans.
std::string FormatTriage(const Triage& triage);
Json TriageToJson(const Triage& triage);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_TRIAGE_TRIAGE_H_
