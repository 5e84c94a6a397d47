// Options that reach LLVM code generation, derived from CompileOptions.
//
// Tested through compiler/codegen/codegen_test.cc.
#ifndef REPROKIT_COMPILER_CODEGEN_CODEGEN_OPTIONS_H_
#define REPROKIT_COMPILER_CODEGEN_CODEGEN_OPTIONS_H_

namespace rk::compiler::codegen {

struct CodegenOptions {
  bool fast_math = false;      // fast-math flags and polynomial exp/tanh
  bool low_precision = false;  // f16/bf16 ops round to their dtype after each op
  int vector_width = 0;        // 0: the target's choice; else loop metadata
  int threads = 1;             // > 1: parallel loops go through rk_parallel_for
  // f32 exp (and sigmoid's) inline by accurate_exp.h, which vectorizes,
  // instead of calls to expf. The x86 backend turns it on for kernels with
  // enough work (host_compiler.h); NVPTX keeps libdevice's expf.
  bool inline_exp = false;
};

}  // namespace rk::compiler::codegen

#endif  // REPROKIT_COMPILER_CODEGEN_CODEGEN_OPTIONS_H_
