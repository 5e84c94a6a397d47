#include "minifier/reductions/shrink_shapes.h"

#include <algorithm>

#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::HostTensor;
using compiler::Shape;

int CeilLog2(int64_t v) {
  int bits = 0;
  while ((int64_t{1} << bits) < v) ++bits;
  return bits;
}

}  // namespace

ReductionPlan ShrinkShapes(const ReductionInput& input) {
  const Candidate& base = input.current;
  int64_t largest = 1;
  for (const HostTensor& tensor : base.inputs) {
    for (int64_t dim : tensor.shape().dims()) largest = std::max(largest, dim);
  }
  // Target 0: scalars; target 1 + i: every dim divided by 2^(levels - i).
  const int levels = CeilLog2(largest);
  ReductionPlan plan;
  plan.num_targets = levels + 1;
  plan.build = [&base, levels](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    const bool scalars = chosen[0] == 0;
    const int shift = scalars ? levels : levels - (chosen[0] - 1);
    std::vector<HostTensor> inputs;
    for (const HostTensor& tensor : base.inputs) {
      std::vector<int64_t> dims;
      for (int64_t dim : tensor.shape().dims()) {
        dims.push_back(dim == 0 ? 0 : std::max<int64_t>(1, (dim + (int64_t{1} << shift) - 1) >> shift));
      }
      HostTensor block = LeadingBlock(tensor, Shape(dims));
      if (scalars && block.num_elements() == 1) block = LeadingBlock(block, Shape());
      inputs.push_back(std::move(block));
    }
    return RebuildOnInputs(base, std::move(inputs));
  };
  return plan;
}

}  // namespace rk::minifier
