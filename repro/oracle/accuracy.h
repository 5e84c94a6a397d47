// Accuracy policies: is a compiled result "the same" as the reference?
//
// Inputs per output: the compiled result, the reference interpreter's result
// in the graph's own dtypes ("native"), and optionally the fp64 reference.
// A policy computes OutputMetrics and judges pass / fail / cannot-judge.
//
// Policies (FindAccuracyPolicy):
//   "torch"  (default) PyTorch's same() rule: pass if allclose(result, native,
//            atol = rtol = tol); otherwise, against fp64, pass iff
//            rmse(result, fp64) <= m * rmse(native, fp64) + tol / 10, with
//            m = 2, or 3 for f16/bf16 results, tensors under 1,000 elements or
//            tol >= 2e-2. NaN in the result where fp64 is finite fails; NaN in
//            the native reference but not in the result passes when the result
//            is close to fp64. NaN in fp64 where the result is NaN too is equal
//            (PyTorch's equal_nan) and the other elements are judged; NaN in
//            fp64 where the result is a number means cannot judge. When the
//            output was computed in a lower precision than its dtype
//            (computed_in, e.g. bf16 widened by a cast), rmse(native, fp64) is
//            taken as at least the rounding error of that precision, and
//            the bound is at least that rounding error plus what rounding
//            the values it is computed from may move it by
//            (operand_rounding_rms).
//   "strict" allclose(result, native) only.
//   "cosine" cosine similarity of result and native >= 0.99.
// Non-float outputs compare exactly (or are ignored with compare_non_float =
// false). Shapes or dtypes that differ always fail.
//
// Tested by repro/oracle/accuracy_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_ACCURACY_H_
#define REPROKIT_REPRO_ORACLE_ACCURACY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/tensor.h"

namespace rk::repro {

enum class Judgement { kPass, kFail, kCannotJudge };
std::string_view JudgementName(Judgement j);

struct OutputMetrics {
  int64_t elements = 0;
  double max_abs_error = 0;   // |result - native|
  double max_rel_error = 0;   // |result - native| / max(|native|, tiny)
  double rmse_result = 0;     // rmse(result, fp64); NaN when no fp64
  double rmse_reference = 0;  // rmse(native, fp64); NaN when no fp64
  double rmse_ratio = 0;      // rmse_result / rmse_reference (Inf if the latter is 0)
  double cosine = 1;          // cosine similarity of result and native
  int64_t mismatches = 0;     // elements failing allclose(result, native)
  int64_t first_mismatch = -1;
  Judgement judgement = Judgement::kPass;
  std::string reason;         // one line: why it passed or failed
};

struct AccuracyOptions {
  // Tolerance; <= 0 picks a default from the result dtype: 1e-4 for f32/f64,
  // 1e-2 for f16/bf16.
  double tol = 0;
  bool compare_non_float = true;
  // The lowest float precision on the output's paths (computation_precision.h);
  // kF64: the output's own dtype decides.
  compiler::DType computed_in = compiler::DType::kF64;
  // The rms change of the output when the bf16/f16 values it is computed
  // from are rounded to their dtypes (operand_rounding.h); 0 when not
  // measured. With a bf16/f16 computed_in, the torch rule passes an error up
  // to the output's own rounding floor plus this, since fused code may skip
  // roundings the reference does.
  double operand_rounding_rms = 0;
};

double DefaultTolerance(compiler::DType dtype);

class AccuracyPolicy {
 public:
  virtual ~AccuracyPolicy() = default;
  virtual std::string_view name() const = 0;
  // `fp64` may be nullptr (no fp64 reference available).
  virtual OutputMetrics Judge(const compiler::HostTensor& result,
                              const compiler::HostTensor& native,
                              const compiler::HostTensor* fp64,
                              const AccuracyOptions& options) const = 0;
};

// nullptr for an unknown name.
const AccuracyPolicy* FindAccuracyPolicy(std::string_view name);
std::vector<std::string> AccuracyPolicyNames();

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_ACCURACY_H_
