// GenContext: the generator's working state - the values built so far with
// their facts (type, range, exactness), the input specs, the random stream -
// and the building blocks the op builders of generator.cc share: shape
// solving, backward insertion of producers, dtype conversion and domain
// guards. Internal to the generator.
//
// Tested through testing/fuzz/generator_test.cc.
#ifndef REPROKIT_COMPILER_GENERATOR_GENERATOR_CONTEXT_H_
#define REPROKIT_COMPILER_GENERATOR_GENERATOR_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/generator/generator.h"
#include "compiler/generator/rng.h"
#include "compiler/generator/value_range.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/graph.h"

namespace rk::compiler::generator {

// Returned by builders that cannot place an op right now (e.g. the result
// would exceed max_elements); the caller draws another op.
absl::Status Skip(const char* why);
bool IsSkip(const absl::Status& status);

class GenContext {
 public:
  GenContext(const GeneratorOptions& options, uint64_t seed);

  Rng& rng() { return rng_; }
  const GeneratorOptions& options() const { return options_; }
  int num_values() const { return static_cast<int>(values_.size()); }
  int compute_nodes() const { return compute_nodes_; }
  const ValueFacts& facts(int v) const { return values_[v].facts; }
  const compiler::TensorType& type(int v) const { return values_[v].facts.type; }

  // Adds a node: InferType must accept it (an error is a generator bug,
  // Internal), the result must fit max_elements (Skip otherwise).
  absl::StatusOr<int> Emit(compiler::Op op, std::vector<int> operands,
                           compiler::Attributes attrs = {});
  // Emits an op whose result must stay within kMaxMagnitude: float operands
  // are scaled down first when their ranges could push it over.
  absl::StatusOr<int> EmitBounded(compiler::Op op, std::vector<int> operands,
                                  compiler::Attributes attrs = {});
  // A second node computing what `v` computes (same op, operands and
  // attributes); Skip for an input.
  absl::StatusOr<int> EmitCopy(int v);
  // A new graph input with a RandomSpec chosen for its dtype.
  int NewInput(const compiler::TensorType& type);

  // --- Choosing types and shapes.
  compiler::DType MainFloat() const { return main_float_; }
  compiler::DType RandomFloatDType();
  compiler::DType RandomDType();  // any dtype, weighted towards the main float
  compiler::Shape RandomShape(int min_rank = 0);
  // A shape that broadcasts with `s` to exactly `s` (a suffix, some dims 1).
  compiler::Shape BroadcastPartner(const compiler::Shape& s);
  // `n` split into `rank` factors in random order.
  std::vector<int64_t> Factorize(int64_t n, int rank);
  std::vector<int64_t> RandomAxes(int rank, bool allow_empty);

  // --- Operands.
  // An existing value satisfying `pred`, preferring unused ones; -1 if none.
  int Pick(const std::function<bool(const ValueFacts&)>& pred);
  // Backward insertion: a value of exactly `type` (exact when asked).
  absl::StatusOr<int> Produce(const compiler::TensorType& type, bool need_exact);
  // Gather indices of `type` (i32 or i64), every value in [-size, size): an
  // existing value of that type and range, a new input drawn from that
  // range, a literal or a splat.
  absl::StatusOr<int> ProduceIndices(const compiler::TensorType& type, int64_t size);
  // A layout chain from `v` to `shape` (same dtype).
  absl::StatusOr<int> Derive(int v, const compiler::Shape& shape);
  // `v` as `dtype`: itself, a cast, or (when a cast would need an exact
  // value `v` is not) a fresh exact producer of the same shape.
  absl::StatusOr<int> Convert(int v, compiler::DType dtype);
  // `v` made acceptable as operand `index` of `op` producing `result`.
  absl::StatusOr<int> Fit(compiler::Op op, int index, int v, const compiler::TensorType& result);

  // --- Guards (float unless noted).
  // MaxAbs <= bound (ints: clamp); with keep_exact an exact value is clipped,
  // so it stays exact.
  absl::StatusOr<int> Squash(int v, double bound, bool keep_exact = false);
  absl::StatusOr<int> MakePositive(int v);          // lo >= kMinPositive
  // |v| >= bound everywhere, keeping an exact v exact (a divisor's guard).
  absl::StatusOr<int> AwayFromZero(int v, double bound);
  absl::StatusOr<int> ScalarFull(compiler::DType dtype, double value);

  // A source node (full, iota or constant) of `type`.
  absl::StatusOr<int> EmitSource(compiler::Op op, const compiler::TensorType& type);

  // The graph: inputs first, nodes in creation order, every unused computed
  // value an output (some of them with pass_patterns; ir_corner_cases adds
  // its corner cases here).
  absl::StatusOr<GeneratedGraph> Finish();

 private:
  struct Value {
    ValueFacts facts;
    bool is_input = false;
    int users = 0;
    compiler::Op op = compiler::Op::kInput;
    std::vector<int> operands;
    compiler::Attributes attrs;
    compiler::RandomSpec spec;
  };
  absl::StatusOr<int> ProduceSource(const compiler::TensorType& type);
  absl::StatusOr<int> ProduceBool(const compiler::Shape& shape);
  absl::StatusOr<int> SliceTo(int v, const compiler::Shape& shape);

  GeneratorOptions options_;
  Rng rng_;
  compiler::DType main_float_;
  std::vector<Value> values_;
  int compute_nodes_ = 0;
  int num_inputs_ = 0;
};

}  // namespace rk::compiler::generator

#endif  // REPROKIT_COMPILER_GENERATOR_GENERATOR_CONTEXT_H_
