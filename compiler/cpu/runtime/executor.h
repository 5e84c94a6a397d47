// Runs a compiled program: checks inputs, allocates outputs and the arena of
// temporaries, and calls each kernel's machine code in order with its buffer
// pointers (through rk_parallel_for for threaded kernels).
//
// Tested through the end-to-end tests in compiler/driver/ (compile_test.cc,
// compile_diff_test.cc: compiled programs run against the reference);
// rk_parallel_for, which it calls, by compiler/cpu/runtime/runtime_test.cc.
#ifndef REPROKIT_COMPILER_CPU_RUNTIME_EXECUTOR_H_
#define REPROKIT_COMPILER_CPU_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/cpu/runtime/runtime_support.h"
#include "compiler/ir/tensor.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::cpu {

// One kernel of a program, ready to call.
struct KernelCall {
  RkLoopBody fn = nullptr;       // fn(args, begin, end, run_counter)
  std::vector<int32_t> buffers;  // program buffer behind each args[i]
  int64_t extent = 0;            // iterations of the outer loop (0: the body runs once)
  int threads = 1;               // > 1: the outer loop is split across threads
};

// `inputs`: exactly the graph's declared input types, in order (checked by
// Executable::Run); `kernels` in program order.
absl::StatusOr<std::vector<HostTensor>> Execute(const kernel::Program& program,
                                                absl::Span<const KernelCall> kernels,
                                                absl::Span<const HostTensor> inputs);

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_RUNTIME_EXECUTOR_H_
