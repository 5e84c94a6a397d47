// Reverse-mode automatic differentiation over the graph IR: the joint graph.
//
// Given a forward graph with outputs y_0..y_{m-1} and a set of marked float
// inputs, the joint graph computes
//   outputs: y_0 .. y_{m-1}  (the forward nodes, copied unchanged), then
//            d/dx [ sum_i sum(y_i * seed_i) ] for each marked input x, in the
//            GradSpec's order;
//   inputs:  the forward inputs (same order, same names, grad marks dropped),
//            then one upstream gradient seed_i per float output y_i (type of
//            y_i, named seed.<i>), so a bundle records the seeds as inputs.
// Non-float outputs (integers, bool) get no seed: no gradient flows from them.
// An input that reaches no output through float values gets a zero gradient
// (a `full` of zeros). Each op's backward is its rule in vjp.cc's table; ops
// without a derivative contribute zero, and an op the table marks
// unsupported is an Unimplemented error naming it.
//
// Options may carry planted backward-only faults (vjp:<op>:<kind>,
// compiler/options/faults.h, docs/FAULTS.md): BuildJointGraph then emits the
// faulty rule; the forward half is never affected.
//
// Tested by compiler/autodiff/joint_graph_test.cc (structure, errors, seeds,
// random graphs) and compiler/autodiff/gradient_check_test.cc (every rule
// against central finite differences); compiled on the CPU backend by
// compiler/driver/compile_joint_test.cc.
#ifndef REPROKIT_COMPILER_AUTODIFF_JOINT_GRAPH_H_
#define REPROKIT_COMPILER_AUTODIFF_JOINT_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/faults.h"

namespace rk::compiler::autodiff {

// Which inputs of the forward graph need gradients.
struct GradSpec {
  std::vector<NodeId> inputs;  // forward input ids, each once
};

// The inputs marked `grad` in the graph (text format `%w: f32[4] grad`).
GradSpec GradSpecFromMarks(const Graph& forward);
// Every float input.
GradSpec GradSpecAllFloat(const Graph& forward);
// Inputs by name (without '%'); InvalidArgument naming an unknown name or an
// input named twice.
absl::StatusOr<GradSpec> GradSpecFromNames(const Graph& forward,
                                           absl::Span<const std::string> names);

struct AutodiffOptions {
  FaultSet faults;  // only the vjp:<op>:<kind> faults matter here
};

struct JointGraph {
  Graph graph;
  int num_forward_inputs = 0;
  int num_forward_outputs = 0;  // the joint graph's first outputs

  struct Gradient {
    NodeId input;        // the forward (and joint) input it is the gradient of
    std::string name;    // that input's display name
    int output = 0;      // index into graph.outputs()
  };
  std::vector<Gradient> gradients;  // in GradSpec order

  struct Seed {
    int forward_output = 0;  // the forward output it is the upstream gradient of
    int input = 0;           // index of the joint graph input that holds it
  };
  std::vector<Seed> seeds;  // in forward output order
};

// InvalidArgument if the forward graph does not verify, a spec entry is not
// an input of it, or a marked input is not float (naming it); Unimplemented
// naming an op on a gradient path that has no rule.
absl::StatusOr<JointGraph> BuildJointGraph(const Graph& forward, const GradSpec& spec,
                                           const AutodiffOptions& options = {});

// The joint graph's inputs for given forward inputs: those, then seed values
// that are exactly what compiler/ir/seeded_inputs gives those joint inputs for
// `seed` (HostTensor::Random(type, SeedForInput(seed, joint index),
// DefaultInputSpec)), so SeededInputs(joint.graph, seed) agrees with it when
// the forward inputs are seeded too. InvalidArgument if the count is wrong.
absl::StatusOr<std::vector<HostTensor>> JointInputs(const JointGraph& joint,
                                                    absl::Span<const HostTensor> forward_inputs,
                                                    uint64_t seed);

}  // namespace rk::compiler::autodiff

#endif  // REPROKIT_COMPILER_AUTODIFF_JOINT_GRAPH_H_
