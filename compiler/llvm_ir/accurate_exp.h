// An accurate f32 exp emitted as straight-line LLVM IR, so loops that call it
// vectorize (a call to libm's expf keeps a loop scalar).
//
// The value is computed in f64 and rounded once to f32: n = round(x / ln 2)
// through the 1.5 * 2^52 shifter (no f64 -> i64 conversion, which AVX2 lacks
// in vector form), r = x - n ln 2 (|r| <= ln 2 / 2, error ~1e-14), exp(r) by
// its degree-9 Taylor polynomial (truncation below 1e-11), times 2^n built
// from exponent bits (exact: n stays within f64's normal range because x is
// clamped to [-104, 89], outside which the f32 result is 0 or inf anyway).
// The f64 result is within ~1e-11 relative of exp(x), so the f32 result is
// correctly rounded except within 1e-11 of a rounding boundary: at most 1 ulp
// from std::exp, subnormal results and overflow included. NaN stays NaN.
// Plain fmul/fadd only (no contraction), so every code generation level
// gives bit-identical results.
//
// Tested by compiler/tests/accurate_exp_test.cc.
#ifndef REPROKIT_COMPILER_LLVM_IR_ACCURATE_EXP_H_
#define REPROKIT_COMPILER_LLVM_IR_ACCURATE_EXP_H_

#include "llvm/IR/IRBuilder.h"

namespace rk::compiler::llvm_ir {

// exp(x) for an f32 scalar `x`; returns an f32 value.
llvm::Value* EmitAccurateExpF32(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace rk::compiler::llvm_ir

#endif  // REPROKIT_COMPILER_LLVM_IR_ACCURATE_EXP_H_
