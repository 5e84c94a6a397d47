// The gradient check of the autodiff tests: the joint graph's gradients,
// evaluated by the reference interpreter, against central finite differences
// of the forward graph's loss sum_i sum(y_i * seed_i) on the same inputs and
// seeds. Graphs should compute in f64 (f32 inputs work with a wider step).
//
// Used by compiler/autodiff/gradient_check_test.cc and
// compiler/autodiff/vjp_faults_test.cc.
#ifndef REPROKIT_COMPILER_AUTODIFF_GRADIENT_CHECK_TEST_UTIL_H_
#define REPROKIT_COMPILER_AUTODIFF_GRADIENT_CHECK_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/autodiff/joint_graph.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::autodiff {

struct GradientCheckResult {
  // "" when every gradient element agrees with its finite difference, else
  // the first disagreement ("grad(%x)[3]: autodiff 0.5, finite difference 1").
  std::string mismatch;
  // The joint graph's forward outputs equal the forward graph's, bitwise.
  bool forward_equal = true;
  // The joint graph's outputs (forward outputs, then gradients).
  std::vector<HostTensor> joint_outputs;
  // Gradient elements compared.
  int64_t checked = 0;
};

// `inputs`: one per forward input. The gradient of each spec input is
// compared element by element; tolerance |ad - fd| <= 1e-5 + 1e-4 |fd|
// (f64 inputs, step 1e-6 relative) or 1e-4 + 1e-3 |fd| (f32, step 1e-3).
absl::StatusOr<GradientCheckResult> CheckGradients(const Graph& forward, const GradSpec& spec,
                                                   const std::vector<HostTensor>& inputs,
                                                   const AutodiffOptions& options = {},
                                                   uint64_t seed = 1);

}  // namespace rk::compiler::autodiff

#endif  // REPROKIT_COMPILER_AUTODIFF_GRADIENT_CHECK_TEST_UTIL_H_
