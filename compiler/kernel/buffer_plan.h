// Buffer planning: places a program's temporaries in one arena so that
// buffers whose lifetimes (first writer to last reader, in kernel order) do
// not overlap share bytes. Offsets are 64-byte aligned; first fit in order of
// definition.
//
// Tested by compiler/kernel/buffer_plan_test.cc.
#ifndef REPROKIT_COMPILER_KERNEL_BUFFER_PLAN_H_
#define REPROKIT_COMPILER_KERNEL_BUFFER_PLAN_H_

#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::kernel {

// Sets arena_offset of every kTemp buffer and program.arena_bytes. Needs the
// kernels' reads/writes lists.
void PlanBuffers(Program& program);

}  // namespace rk::compiler::kernel

#endif  // REPROKIT_COMPILER_KERNEL_BUFFER_PLAN_H_
