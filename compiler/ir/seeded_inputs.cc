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

std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed) {
  std::vector<HostTensor> inputs;
  std::vector<NodeId> ids = graph.inputs();
  for (int i = 0; i < static_cast<int>(ids.size()); ++i) {
    const TensorType& type = graph.type(ids[i]);
    inputs.push_back(HostTensor::Random(type, SeedForInput(seed, i), DefaultInputSpec(type.dtype)));
  }
  return inputs;
}

}  // namespace rk::compiler
