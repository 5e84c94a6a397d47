#include "compiler/ir/seeded_inputs.h"

namespace rk::compiler {

uint64_t SeedForInput(uint64_t seed, int input_index) {
  // splitmix64 finalizer over (seed, index): distinct, well-mixed streams.
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (static_cast<uint64_t>(input_index) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

RandomSpec DefaultInputSpec(DType dtype) {
  RandomSpec spec;
  if (IsInteger(dtype)) {
    spec.low = -8;
    spec.high = 8;
  }
  return spec;
}

namespace {

// The smallest gathered-axis size among the gathers that take `id` as their
// indices, following casts and reshapes (which keep every value); 0 when there
// is none. An index outside the axis reads zeros in reprokit's `gather`, but is
// undefined behavior in ONNX and elsewhere, so seeded data stays inside it: a
// model's token ids fed random values in [-8, 8] made every judgement of it
// "cannot judge".
int64_t GatherBound(const Graph& graph, const std::vector<std::vector<NodeId>>& users,
                    NodeId id) {
  int64_t bound = 0;
  for (NodeId user : users[id.value]) {
    const Node& node = graph.node(user);
    int64_t here = 0;
    if (node.op == Op::kGather && node.operands.size() == 2 && node.operands[1] == id) {
      const TensorType& data = graph.type(node.operands[0]);
      absl::StatusOr<int64_t> axis = node.attrs.GetInt("axis");
      int64_t a = axis.ok() ? *axis : 0;
      int64_t rank = static_cast<int64_t>(data.shape.rank());
      if (a < 0) a += rank;
      if (a >= 0 && a < rank) here = data.shape.dim(a);
    } else if (node.op == Op::kCast || node.op == Op::kReshape || node.op == Op::kSqueeze ||
               node.op == Op::kUnsqueeze) {
      if (IsInteger(node.type.dtype)) here = GatherBound(graph, users, user);
    }
    if (here > 0 && (bound == 0 || here < bound)) bound = here;
  }
  return bound;
}

}  // namespace

std::vector<RandomSpec> SeededInputSpecs(const Graph& graph) {
  std::vector<RandomSpec> specs;
  std::vector<std::vector<NodeId>> users = graph.ComputeUsers();
  for (NodeId id : graph.inputs()) {
    const TensorType& type = graph.type(id);
    RandomSpec spec = DefaultInputSpec(type.dtype);
    if (IsInteger(type.dtype)) {
      int64_t bound = GatherBound(graph, users, id);
      if (bound > 0) {
        spec.low = 0;
        spec.high = static_cast<double>(bound - 1);
      }
    }
    specs.push_back(spec);
  }
  return specs;
}

std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed) {
  std::vector<HostTensor> inputs;
  std::vector<NodeId> ids = graph.inputs();
  std::vector<RandomSpec> specs = SeededInputSpecs(graph);
  for (int i = 0; i < static_cast<int>(ids.size()); ++i) {
    inputs.push_back(HostTensor::Random(graph.type(ids[i]), SeedForInput(seed, i), specs[i]));
  }
  return inputs;
}

}  // namespace rk::compiler
