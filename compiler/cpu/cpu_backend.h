// The CPU backend (device=cpu): the shared front end (lower_to_kernels.h),
// then per-kernel LLVM modules, the kernel cache, O2 and the ORC JIT
// (codegen/host_compiler.h), run on host threads (runtime/executor.h).
// Dumps add llvm_before_opt.ll, llvm_after_opt.ll, kernels.s and
// timings.json; a dump turns the kernel cache off so every kernel's IR and
// assembly is shown.
//
// Tested by compiler/driver/compile_test.cc and compile_diff_test.cc.
#ifndef REPROKIT_COMPILER_CPU_CPU_BACKEND_H_
#define REPROKIT_COMPILER_CPU_CPU_BACKEND_H_

#include "compiler/backend/backend.h"

namespace rk::compiler::cpu {

// The process-wide instance (stateless; the kernel cache is its own).
const Backend& CpuBackend();

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CPU_BACKEND_H_
