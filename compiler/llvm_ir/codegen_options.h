// Options that reach LLVM code generation, derived from CompileOptions.
//
// Tested through compiler/driver/compile_diff_test.cc (the numerics options on
// the CPU) and compiler/tests/cuda_program_test.cc (the NVPTX flags).
#ifndef REPROKIT_COMPILER_LLVM_IR_CODEGEN_OPTIONS_H_
#define REPROKIT_COMPILER_LLVM_IR_CODEGEN_OPTIONS_H_

namespace rk::compiler::llvm_ir {

struct CodegenOptions {
  bool fast_math = false;      // fast-math flags and polynomial exp/tanh
  bool low_precision = false;  // f16/bf16 ops round to their dtype after each op
  int vector_width = 0;        // 0: the target's choice; else loop metadata
  int threads = 1;             // > 1: parallel loops go through rk_parallel_for
  // f32 exp (and sigmoid's) inline by accurate_exp.h, which vectorizes,
  // instead of calls to expf. The x86 backend turns it on for kernels with
  // enough work (host_compiler.h); NVPTX keeps libdevice's expf.
  bool inline_exp = false;
  // NVPTX sm_80 and newer: f32 -> bf16 through the hardware's round-to-nearest
  // conversion (cvt.rn.bf16.f32, one instruction) instead of integer
  // arithmetic on the bits. Same value; a NaN becomes the canonical NaN.
  bool native_bf16 = false;
  // NVPTX: exp and sigmoid of f16/bf16-typed ops use the hardware's
  // ex2.approx and rcp.approx. Their relative error (<= 2^-17 over f32's whole
  // range) is far below the 2^-9 (bf16) and 2^-12 (f16) relative rounding of
  // the op's own result type, so the value the program holds is unaffected in
  // all but rare ties; f32 and f64 ops keep the accurate functions.
  bool approx_16bit_math = false;
  // NVPTX sm_80 and newer: f16/bf16 matmuls on mma.sync
  // (compiler/cuda/planning/mma_matmul.h).
  bool tensor_cores = false;
  // With tensor_cores: f32 matmuls too, in TF32.
  bool tf32 = false;
  // NVPTX sm_90a, with tensor_cores: f16/bf16 matmuls on warpgroup MMA
  // (compiler/cuda/planning/wgmma_matmul.h) instead of mma.sync.
  bool wgmma = false;
};

}  // namespace rk::compiler::llvm_ir

#endif  // REPROKIT_COMPILER_LLVM_IR_CODEGEN_OPTIONS_H_
