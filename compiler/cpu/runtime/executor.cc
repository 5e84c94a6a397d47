#include "compiler/cpu/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

namespace rk::compiler::cpu {
namespace {

// Seeded from the clock so runs differ across processes too.
int64_t NextRunCounter() {
  static std::atomic<int64_t> counter{
      std::chrono::steady_clock::now().time_since_epoch().count() % 1000 + 1};
  return counter.fetch_add(1) % 997 + 1;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

absl::StatusOr<std::vector<HostTensor>> Execute(const kernel::Program& program,
                                                absl::Span<const KernelCall> kernels,
                                                absl::Span<const HostTensor> inputs) {
  std::vector<HostTensor> output_buffers(program.num_output_buffers);
  std::unique_ptr<void, FreeDeleter> arena(
      program.arena_bytes > 0 ? std::aligned_alloc(64, program.arena_bytes) : nullptr);
  std::vector<void*> table(program.buffers.size(), nullptr);
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const kernel::Buffer& buffer = program.buffers[b];
    switch (buffer.role) {
      case kernel::BufferRole::kInput:
        table[b] = const_cast<void*>(inputs[buffer.external_index].raw_data());
        break;
      case kernel::BufferRole::kConstant:
        table[b] = const_cast<void*>(program.constants[buffer.external_index].raw_data());
        break;
      case kernel::BufferRole::kOutput:
        // Every output element is stored by its kernel: no zero fill.
        output_buffers[buffer.external_index] = HostTensor::Uninitialized(buffer.type);
        table[b] = output_buffers[buffer.external_index].raw_data();
        break;
      case kernel::BufferRole::kTemp:
        table[b] = static_cast<char*>(arena.get()) + buffer.arena_offset;
        break;
      case kernel::BufferRole::kLocal: break;
    }
  }
  const int64_t run_counter = NextRunCounter();
  std::vector<void*> args;
  for (const KernelCall& k : kernels) {
    args.clear();
    for (int32_t b : k.buffers) args.push_back(table[b]);
    if (k.threads > 1) {
      rk_parallel_for(k.fn, args.data(), k.extent, k.threads, run_counter);
    } else {
      k.fn(args.data(), 0, k.extent, run_counter);
    }
  }
  std::vector<HostTensor> outputs;
  outputs.reserve(program.outputs.size());
  for (int32_t b : program.outputs) {
    const kernel::Buffer& buffer = program.buffers[b];
    switch (buffer.role) {
      case kernel::BufferRole::kInput: outputs.push_back(inputs[buffer.external_index].Clone()); break;
      case kernel::BufferRole::kConstant:
        outputs.push_back(program.constants[buffer.external_index].Clone());
        break;
      default: outputs.push_back(output_buffers[buffer.external_index]); break;
    }
  }
  return outputs;
}

}  // namespace rk::compiler::cpu
