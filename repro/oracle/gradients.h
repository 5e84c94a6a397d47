// Judging gradients: a graph with inputs marked `grad` (`%w: f32[4] grad`,
// docs/FORMAT.md) is judged as its joint graph (forward outputs, then the
// gradient of sum(out_i * seed_i) for each marked input;
// compiler/autodiff/joint_graph.h), as PyTorch's repro harness runs forward
// and backward and compares outputs and gradients against an fp64 run.
//
// The two halves of a judgement see different joint graphs:
//   - the compiled program is the joint graph built with the options'
//     backward-only faults (vjp:<op>:<kind>): the backward a training compiler
//     derived is the code under test;
//   - the native and fp64 references evaluate the joint graph built without
//     them (the true gradients).
// The upstream gradients (seeds) are the joint graph's last inputs, seeded
// random tensors from kGradientSeed: every judgement of a bundle sees the
// same seeds, so a bundle needs only its forward inputs.
//
// Naming (failure_site.h extended to gradients): when only gradients fail and
// a vjp:<op> fault is planted on an op X of the forward graph, the failure is
// named after that X (every graph the failure minimizes to holds one);
// otherwise after the joint graph's failing output, by the usual rule.
//
// Tested by repro/oracle/gradients_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_GRADIENTS_H_
#define REPROKIT_REPRO_ORACLE_GRADIENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/autodiff/joint_graph.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

// The seed of the upstream gradients (JointInputs).
inline constexpr uint64_t kGradientSeed = 0x67726164;  // "grad"

// Whether any input of `graph` is marked for a gradient.
bool HasGradientMarks(const compiler::Graph& graph);

struct GradientJudgement {
  compiler::autodiff::JointGraph compiled;  // with the planted vjp faults
  compiler::Graph reference;                // without them; same signature
  std::vector<compiler::HostTensor> inputs;  // forward inputs, then the seeds
};

// InvalidArgument for unparsable faults or a forward graph BuildJointGraph
// refuses (a marked integer input), Unimplemented for an op without a
// gradient rule on a gradient path: bad input, never a verdict.
absl::StatusOr<GradientJudgement> PrepareGradients(const compiler::Graph& forward,
                                                   absl::Span<const compiler::HostTensor> inputs,
                                                   const compiler::CompileOptions& options);

// The graph the compiler compiles when `graph` is judged: `graph` itself, or
// for `grad` inputs its joint graph with the planted vjp faults (what
// in-process compiles beside the oracle, e.g. pass bisection's logs, must
// compile so their pass applications are the oracle's).
absl::StatusOr<compiler::Graph> CompiledGraph(const compiler::Graph& graph,
                                              const compiler::CompileOptions& options);

// For a failure seen only in gradients: the forward op (and that node's
// dtype) a planted vjp:<op> fault names, when the forward graph holds one;
// nullopt otherwise.
struct PlantedVjpSite {
  std::string op;
  std::string dtype;
};
std::optional<PlantedVjpSite> FindPlantedVjpSite(const compiler::Graph& forward,
                                                 const compiler::CompileOptions& options);

// The forward graph with exactly the inputs of `spec` marked `grad` (earlier
// marks cleared). InvalidArgument naming a marked input that is not float.
absl::StatusOr<compiler::Graph> WithGradientMarks(const compiler::Graph& forward,
                                                  const compiler::autodiff::GradSpec& spec);

// `--grad SPEC` of the command line: "none" (no marks), "all-float", or
// input names separated by commas ("x,w" or "%x,%w").
absl::StatusOr<compiler::Graph> ApplyGradFlag(const compiler::Graph& forward,
                                              const std::string& spec);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_GRADIENTS_H_
