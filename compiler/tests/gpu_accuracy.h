// Test-only accuracy judgement for GPU results: the compiled CUDA output is
// judged against the fp64 reference interpreter with an error budget taken
// from the native-dtype reference, the same shape of rule as the oracle's
// default ("torch" in repro/oracle/accuracy.h), re-implemented here because
// compiler/ must not depend on repro/.
//
// Per float output, with tol the caller's tolerance:
//   1. pass if allclose(gpu, native_ref): |gpu - ref| <= tol + tol * |ref|
//      everywhere, NaNs in the same places;
//   2. else pass iff rmse(gpu, fp64) <= m * rmse(native_ref, fp64) + tol / 10,
//      m = 2, or 3 for f16/bf16 outputs and outputs under 1,000 elements.
//      A NaN (or an infinity fp64 does not have) in gpu where fp64 is finite
//      fails; elements where fp64 is NaN cannot be judged and are skipped.
// Integer and bool outputs must be equal element for element.
//
// Why: the GPU computes the same function as the CPU path with different
// but legitimate rounding (libdevice math within 2 ulp, fused multiply-add,
// reductions combined in a tree), so a fixed relative tolerance against the
// CPU-style reference misses on near-zero elements and long reductions while
// the GPU result is as close to the exact answer as the reference is.
//
// Tested by compiler/tests/gpu_accuracy_test.cc (the rule on hand-made
// tensors); used by compiler/tests/cuda_program_test.cc.
#ifndef REPROKIT_COMPILER_TESTS_GPU_ACCURACY_H_
#define REPROKIT_COMPILER_TESTS_GPU_ACCURACY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"

namespace rk::compiler::cuda {

struct BudgetMetrics {
  bool pass = false;
  bool allclose = false;
  double rmse_result = 0;     // rmse(result, fp64) over judged elements
  double rmse_reference = 0;  // rmse(native reference, fp64)
  double multiplier = 2;
  std::string why;  // the failure, empty on a pass
};

// Judges one output. `result` and `reference` have the output's dtype;
// `fp64` is the fp64 reference's output (f64 for float outputs).
BudgetMetrics JudgeWithErrorBudget(const HostTensor& result, const HostTensor& reference,
                                   const HostTensor& fp64, double tol);

// Compiles `graph_text` with `options`, runs it on seeded inputs
// (HostTensor::Random(type, seed + input id, spec); integers in [-20, 20]
// when the spec's range is narrow), evaluates the reference natively and in
// fp64 and judges every output. Returns "" when all pass, else a description
// of the first failing output with its metrics.
absl::StatusOr<std::string> CompareWithErrorBudget(const std::string& graph_text,
                                                   const CompileOptions& options, double tol,
                                                   const RandomSpec& spec = {},
                                                   uint64_t seed = 7);

// The same judgement on the caller's inputs (e.g. planted ties and NaNs).
absl::StatusOr<std::string> CompareInputsWithErrorBudget(const std::string& graph_text,
                                                         const CompileOptions& options, double tol,
                                                         const std::vector<HostTensor>& inputs);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_TESTS_GPU_ACCURACY_H_
