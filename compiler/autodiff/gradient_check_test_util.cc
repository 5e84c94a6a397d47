#include "compiler/autodiff/gradient_check_test_util.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler::autodiff {
namespace {

// sum_i sum(y_i * seed_i) over the seeded outputs, in double.
absl::StatusOr<double> Loss(const Graph& forward, const JointGraph& joint,
                            const std::vector<HostTensor>& inputs,
                            const std::vector<HostTensor>& joint_inputs) {
  RK_ASSIGN_OR_RETURN(EvalResult r, Evaluate(forward, inputs));
  double loss = 0;
  for (const JointGraph::Seed& s : joint.seeds) {
    const HostTensor& y = r.outputs[s.forward_output];
    const HostTensor& seed = joint_inputs[s.input];
    for (int64_t i = 0; i < y.num_elements(); ++i) loss += y.GetDouble(i) * seed.GetDouble(i);
  }
  return loss;
}

}  // namespace

absl::StatusOr<GradientCheckResult> CheckGradients(const Graph& forward, const GradSpec& spec,
                                                   const std::vector<HostTensor>& inputs,
                                                   const AutodiffOptions& options, uint64_t seed) {
  RK_ASSIGN_OR_RETURN(JointGraph joint, BuildJointGraph(forward, spec, options));
  RK_ASSIGN_OR_RETURN(std::vector<HostTensor> joint_inputs, JointInputs(joint, inputs, seed));
  RK_ASSIGN_OR_RETURN(EvalResult fwd, Evaluate(forward, inputs));
  RK_ASSIGN_OR_RETURN(EvalResult out, Evaluate(joint.graph, joint_inputs));
  GradientCheckResult result;
  for (int k = 0; k < joint.num_forward_outputs; ++k) {
    result.forward_equal = result.forward_equal && fwd.outputs[k].BitwiseEqual(out.outputs[k]);
  }
  result.joint_outputs = out.outputs;
  for (const JointGraph::Gradient& grad : joint.gradients) {
    const HostTensor& ad = out.outputs[grad.output];
    const HostTensor& x = inputs[grad.input.value];
    const bool wide = x.dtype() == DType::kF64;
    const double step = wide ? 1e-6 : 1e-3;
    const double atol = wide ? 1e-5 : 1e-4, rtol = wide ? 1e-4 : 1e-3;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const double v = x.GetDouble(i);
      const double h = step * std::max(1.0, std::abs(v));
      std::vector<HostTensor> plus = inputs, minus = inputs;
      plus[grad.input.value] = x.Clone();
      minus[grad.input.value] = x.Clone();
      plus[grad.input.value].SetDouble(i, v + h);
      minus[grad.input.value].SetDouble(i, v - h);
      const double span = plus[grad.input.value].GetDouble(i) - minus[grad.input.value].GetDouble(i);
      RK_ASSIGN_OR_RETURN(double up, Loss(forward, joint, plus, joint_inputs));
      RK_ASSIGN_OR_RETURN(double down, Loss(forward, joint, minus, joint_inputs));
      const double fd = (up - down) / span;
      const double got = ad.GetDouble(i);
      ++result.checked;
      if (!(std::abs(got - fd) <= atol + rtol * std::abs(fd))) {
        result.mismatch = absl::StrCat("grad(%", grad.name, ")[", i, "]: autodiff ", got,
                                       ", finite difference ", fd);
        return result;
      }
    }
  }
  return result;
}

}  // namespace rk::compiler::autodiff
