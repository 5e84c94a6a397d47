// The random graph generator of the fuzzer and of the compiler's property
// tests: random, valid, numerically meaningful graphs
// drawn from the op table (compiler/ir/ops.def), deterministic per seed.
//
// How: a graph grows by forward insertion (an op consumes existing values,
// preferring ones nobody uses yet) and backward insertion (when an op needs
// an operand of a given type - a matmul partner with the right inner dim, a
// concat partner, a broadcast-compatible operand, a bool condition - a
// producer is created: a new input, full/iota/literal constants, or a layout
// chain (reshape, slice, broadcast_to, squeeze/unsqueeze) over an existing
// value). Shape constraints are solved directly, never by trial and error.
// Every node passes InferType as it is added and the result is rebuilt
// through GraphBuilder and verified.
//
// Numerics (value_range.h): every value carries conservative bounds, and an
// operand outside its op's safe domain gets a guard first (abs(x)+c or
// exp(tanh-bounded x) before log/sqrt/rsqrt/pow bases and divisors, tanh or
// scaling before exp and before anything whose result could exceed
// kMaxMagnitude, clamps on integers before they become floats). Inputs get
// a RandomSpec each (uniform, positive or normal), returned with the graph,
// so the fp64 reference of a generated graph on its inputs is finite.
// Comparisons, argmax, where-conditions and float->int casts only see values
// a correct compiler computes bit-exactly, so rounding differences never
// flip a discrete result.
//
// Guarantees: Generate(seed, options) is a pure function of its arguments;
// every graph verifies; every v1 op is reachable. Shown by
// testing/fuzz/generator_test.cc (thousands of seeds: Verify OK, fp64
// reference finite, every op covered, determinism; it lives above the
// reference interpreter it checks against). The options for the compiler's
// property tests are shown by compiler/generator/generator_options_test.cc,
// and compiler/generator/generator_golden_test.cc pins the default graphs of
// seeds 1..200, so fuzzing stays reproducible across changes.
//
// Needs only compiler/ir, so every compiler package after ir may use it.
#ifndef REPROKIT_COMPILER_GENERATOR_GENERATOR_H_
#define REPROKIT_COMPILER_GENERATOR_GENERATOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/op.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::generator {

struct GeneratorOptions {
  // Compute nodes to aim for (guards and producers included; inputs not).
  int nodes = 10;
  // Elements per tensor, for every value in the graph.
  int64_t max_elements = 1024;
  int max_rank = 4;
  int max_inputs = 4;
  // Besides the graph's main float dtype, use other floats, integers and bools
  // (joined by explicit casts).
  bool mixed_dtypes = true;
  // Ops to draw from; empty: every op of the table.
  std::vector<compiler::Op> ops;

  // --- For the compiler's property tests. Off for fuzzing: each changes the
  // graphs a seed gives.
  // For the text format, serialization and hashing (corner_values.h):
  // literals, full values and norm epsilons take exact corner values (signed
  // zeros, infinities, NaNs, subnormals, random bit patterns, extreme
  // integers), the graph, its inputs and about half of the other nodes get
  // names that need quoting, and the signature may get an unused input, an
  // input as an output and a repeated output. Applied after the structure is chosen (a seed's
  // graph keeps its ops and shapes); values are then no longer finite.
  bool ir_corner_cases = false;
  // For the graph passes (pass_patterns.h): about a third of the steps add a
  // pattern some pass rewrites instead of an op of `ops` - identities (neg of
  // neg, x*1, x+0, cast and layout round trips, log of exp), x-x, x*x, a
  // repeated node, a constant subgraph - and about half of the unused values
  // are left dead instead of becoming outputs. Values stay finite.
  bool pass_patterns = false;
};

struct GeneratedGraph {
  compiler::Graph graph;
  // One per graph input, in signature order.
  std::vector<compiler::RandomSpec> input_specs;
  // Input i is HostTensor::Random(type_i, SeedForInput(data_seed, i), spec_i).
  std::vector<compiler::HostTensor> MakeInputs(uint64_t data_seed) const;
};

absl::StatusOr<GeneratedGraph> Generate(uint64_t seed, const GeneratorOptions& options = {});

inline constexpr int kNumOps = static_cast<int>(std::size(compiler::kAllOps));

// How often each op appeared in generated graphs.
struct OpCoverage {
  std::array<int64_t, kNumOps> counts{};

  void Add(const compiler::Graph& graph);
  void Merge(const OpCoverage& other);
  int64_t count(compiler::Op op) const { return counts[static_cast<int>(op)]; }
  // Ops never seen, in table order.
  std::vector<compiler::Op> Missing() const;
};

}  // namespace rk::compiler::generator

#endif  // REPROKIT_COMPILER_GENERATOR_GENERATOR_H_
