#include "compiler/llvm_ir/accurate_exp.h"

#include "llvm/IR/Intrinsics.h"

namespace rk::compiler::llvm_ir {

llvm::Value* EmitAccurateExpF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* f64 = b.getDoubleTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  // Clamping keeps 2^n a normal double; exp(89) overflows f32 and exp(-104)
  // is below half the smallest f32 subnormal, so results there are unchanged.
  llvm::Value* lo = llvm::ConstantFP::get(x->getType(), -104.0);
  llvm::Value* hi = llvm::ConstantFP::get(x->getType(), 89.0);
  llvm::Value* clamped = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::minnum, b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, lo), hi);
  llvm::Value* d = b.CreateFPExt(clamped, f64);
  // Adding 1.5 * 2^52 rounds x / ln 2 to an integer held in the low mantissa
  // bits; subtracting it again gives n as a double.
  constexpr double kShifter = 6755399441055744.0;  // 1.5 * 2^52
  llvm::Value* shifted = b.CreateFAdd(b.CreateFMul(d, c(1.4426950408889634)), c(kShifter));
  llvm::Value* n = b.CreateFSub(shifted, c(kShifter));
  // ln 2 in two parts: n * kLn2Hi is exact for |n| < 2^11.
  llvm::Value* r = b.CreateFSub(d, b.CreateFMul(n, c(0x1.62e42fefa3800p-1)));
  r = b.CreateFSub(r, b.CreateFMul(n, c(0x1.ef35793c7673p-45)));
  // exp(r) = sum r^k / k!, k = 0..9, by Horner's rule.
  static constexpr double kInverseFactorial[] = {
      1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120,
      1.0 / 24,     1.0 / 6,     0.5,        1.0,       1.0};
  llvm::Value* p = c(kInverseFactorial[0]);
  for (int k = 1; k < 10; ++k) p = b.CreateFAdd(b.CreateFMul(p, r), c(kInverseFactorial[k]));
  // 2^n: the low bits of `shifted` are n (two's complement); move n + 1023
  // into the exponent field.
  llvm::Value* bits = b.CreateShl(b.CreateAdd(b.CreateBitCast(shifted, b.getInt64Ty()),
                                              b.getInt64(1023)),
                                  52);
  llvm::Value* scaled = b.CreateFMul(p, b.CreateBitCast(bits, f64));
  llvm::Value* result = b.CreateFPTrunc(scaled, x->getType());
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

}  // namespace rk::compiler::llvm_ir
