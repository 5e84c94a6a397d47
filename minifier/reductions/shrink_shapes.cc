#include "minifier/reductions/shrink_shapes.h"

#include <algorithm>
#include <cstring>

#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

// The block of `tensor` at the origin with `shape` (every dim <= the
// tensor's).
HostTensor LeadingBlock(const HostTensor& tensor, const Shape& shape) {
  HostTensor out(TensorType(tensor.dtype(), shape));
  const int rank = shape.rank();
  const size_t element = static_cast<size_t>(compiler::DTypeSize(tensor.dtype()));
  std::vector<int64_t> source_strides = tensor.shape().Strides();
  std::vector<int64_t> index(rank, 0);
  const auto* src = static_cast<const uint8_t*>(tensor.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * source_strides[d];
    std::memcpy(dst + flat * element, src + offset * element, element);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dim(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

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
