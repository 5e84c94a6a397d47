#include "minifier/reductions/simplify_dtypes.h"

#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Node;

// Rewrites every use of `from` in a node's attributes to f32.
void RetypeAttributes(Node& node, DType from) {
  std::vector<std::pair<std::string, compiler::AttrValue>> updates;
  for (const auto& [name, value] : node.attrs.values()) {
    if (const DType* dtype = std::get_if<DType>(&value); dtype != nullptr && *dtype == from) {
      updates.emplace_back(name, DType::kF32);
    } else if (const HostTensor* tensor = std::get_if<HostTensor>(&value);
               tensor != nullptr && tensor->dtype() == from) {
      updates.emplace_back(name, tensor->ConvertTo(DType::kF32));
    }
  }
  for (auto& [name, value] : updates) node.attrs.Set(name, std::move(value));
}

}  // namespace

ReductionPlan SimplifyDtypes(const ReductionInput& input) {
  const Candidate& base = input.current;
  std::vector<DType> present;
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (const Node& node : base.graph.nodes()) {
      if (node.type.dtype == dtype) {
        present.push_back(dtype);
        break;
      }
    }
  }
  ReductionPlan plan;
  plan.num_targets = static_cast<int>(present.size());
  plan.build = [&base, present](absl::Span<const int> chosen) -> absl::StatusOr<Candidate> {
    std::vector<DType> from;
    for (int t : chosen) from.push_back(present[t]);
    std::vector<HostTensor> inputs;
    for (const HostTensor& tensor : base.inputs) {
      bool retype = std::find(from.begin(), from.end(), tensor.dtype()) != from.end();
      inputs.push_back(retype ? tensor.ConvertTo(DType::kF32) : tensor);
    }
    return RebuildOnInputs(base, std::move(inputs), [&from](Node& node) {
      for (DType dtype : from) RetypeAttributes(node, dtype);
    });
  };
  return plan;
}

}  // namespace rk::minifier
