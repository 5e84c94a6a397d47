// A kernel's identity for code caches: a canonical byte string of every
// field of the kernel IR that a backend's emitter can read (statements,
// expressions, accumulators, loop variables, locals) and of the buffers it
// touches (dtype and element count), with buffers numbered by their place
// in the kernel's sorted argument list (locals by their place in
// Kernel::locals), so the same kernel in two programs has the same key
// whatever the programs' buffer numbering. Kernel names and fusion details
// are left out: emitters do not read them.
//
// Guarantee: two kernels with equal keys lower to the same code under the
// same emitter options. The key covers struct fields one by one, so a new
// field in Expr, Stmt or Kernel must join it: kernel_key.cc checks the
// structs' sizes at compile time to make that impossible to miss.
//
// Tested by compiler/kernel/kernel_key_test.cc, and against the x86
// emitter's printed modules on random programs by
// compiler/cpu/codegen/kernel_key_emit_test.cc.
#ifndef REPROKIT_COMPILER_KERNEL_KERNEL_KEY_H_
#define REPROKIT_COMPILER_KERNEL_KERNEL_KEY_H_

#include <string>

#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::kernel {

std::string KernelKey(const Program& program, const Kernel& kernel);

}  // namespace rk::compiler::kernel

#endif  // REPROKIT_COMPILER_KERNEL_KERNEL_KEY_H_
