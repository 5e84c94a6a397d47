#include "compiler/llvm_ir/value_emitter.h"

#include <cmath>

#include "compiler/llvm_ir/accurate_exp.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::llvm_ir {

using kernel::Expr;
using kernel::ExprKind;

llvm::Type* ValueEmitter::ComputeType(DType dtype) {
  switch (dtype) {
    case DType::kF16:
    case DType::kBF16:
    case DType::kF32: return b_.getFloatTy();
    case DType::kF64: return b_.getDoubleTy();
    case DType::kI32: return b_.getInt32Ty();
    case DType::kI64: return b_.getInt64Ty();
    case DType::kBool: return b_.getInt1Ty();
  }
  return b_.getFloatTy();
}

llvm::Type* ValueEmitter::StorageType(DType dtype) {
  switch (dtype) {
    case DType::kF16:
    case DType::kBF16: return b_.getInt16Ty();
    case DType::kBool: return b_.getInt8Ty();
    default: return ComputeType(dtype);
  }
}

llvm::Value* ValueEmitter::FromStorage(llvm::Value* v, DType dtype) {
  switch (dtype) {
    case DType::kF16: return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
    case DType::kBF16:
      if (options_.native_bf16) {
        return b_.CreateFPExt(b_.CreateBitCast(v, b_.getBFloatTy()), b_.getFloatTy());
      }
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    case DType::kBool: return b_.CreateICmpNE(v, b_.getInt8(0));
    default: return v;
  }
}

llvm::Value* ValueEmitter::ToStorage(llvm::Value* v, DType dtype) {
  switch (dtype) {
    case DType::kF16: return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
    case DType::kBF16: {
      if (options_.native_bf16) {
        return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getBFloatTy()), b_.getInt16Ty());
      }
      // Round to nearest even; NaN stays a quiet NaN.
      llvm::Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
      llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
      llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(bits, b_.CreateAdd(lsb, b_.getInt32(0x7fff))), 16);
      llvm::Value* nan = b_.CreateOr(b_.CreateLShr(bits, 16), 0x40);
      llvm::Value* is_nan = b_.CreateFCmpUNO(v, v);
      return b_.CreateTrunc(b_.CreateSelect(is_nan, nan, rounded), b_.getInt16Ty());
    }
    case DType::kBool: return b_.CreateZExt(v, b_.getInt8Ty());
    default: return v;
  }
}

llvm::Value* ValueEmitter::RoundTo(DType dtype, llvm::Value* v) {
  if (dtype != DType::kF16 && dtype != DType::kBF16) return v;
  return FromStorage(ToStorage(v, dtype), dtype);
}

llvm::Value* ValueEmitter::Pointer(int32_t buffer, llvm::Value* index) {
  const DType dtype = program_.buffers[buffer].type.dtype;
  return b_.CreateInBoundsGEP(StorageType(dtype), buffers[buffer], index);
}

llvm::Value* ValueEmitter::Emit(int32_t id) {
  if (!known.empty()) {
    auto k = known.find(id);
    if (k != known.end()) return k->second;
  }
  auto it = cache_.find(id);
  if (it != cache_.end()) return it->second;
  llvm::Value* v = EmitUncached(kernel_.exprs[id]);
  cache_.emplace(id, v);
  return v;
}

llvm::Value* ValueEmitter::EmitUncached(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kConst:
      if (IsFloat(e.dtype)) return llvm::ConstantFP::get(ComputeType(e.dtype), e.float_value);
      return llvm::ConstantInt::get(ComputeType(e.dtype), e.int_value, true);
    case ExprKind::kLoopVar: return vars[e.var];
    case ExprKind::kLoad: {
      const DType dtype = program_.buffers[e.buffer].type.dtype;
      llvm::Value* raw = b_.CreateLoad(StorageType(dtype), Pointer(e.buffer, Emit(e.a)));
      return FromStorage(raw, dtype);
    }
    case ExprKind::kAccRead: return b_.CreateLoad(ComputeType(e.dtype), accs[e.acc]);
    case ExprKind::kRunCounter: return run_counter;
    case ExprKind::kCast: return EmitCast(Emit(e.a), kernel_.exprs[e.a].dtype, e.dtype);
    case ExprKind::kIndex: {
      llvm::Value* a = Emit(e.a);
      llvm::Value* c = Emit(e.b);
      switch (e.index_op) {
        case kernel::IndexOp::kAdd: return b_.CreateAdd(a, c, "", true, true);
        case kernel::IndexOp::kMul: return b_.CreateMul(a, c, "", true, true);
        case kernel::IndexOp::kDiv: return b_.CreateUDiv(a, c);
        case kernel::IndexOp::kMod: return b_.CreateURem(a, c);
      }
      return a;
    }
    case ExprKind::kOp: return EmitOp(e);
  }
  return nullptr;
}

llvm::Value* ValueEmitter::FloatToIntWrapped(llvm::Value* v, DType to) {
  // Truncate toward zero and wrap modulo 2^64 (NaN/Inf -> 0) in the runtime.
  llvm::Value* d = v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy());
  llvm::FunctionCallee f = module_.getOrInsertFunction(
      "rk_double_to_i64_wrapped", b_.getInt64Ty(), b_.getDoubleTy());
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
  }
  llvm::Value* i = b_.CreateCall(f, {d});
  return to == DType::kI64 ? i : b_.CreateTrunc(i, ComputeType(to));
}

llvm::Value* ValueEmitter::EmitCast(llvm::Value* v, DType from, DType to) {
  if (from == to) return v;
  llvm::Type* target = ComputeType(to);
  if (to == DType::kBool) {
    if (IsFloat(from)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == DType::kBool) {
    return IsFloat(to) ? b_.CreateUIToFP(v, target) : b_.CreateZExt(v, target);
  }
  if (IsFloat(from) && IsFloat(to)) {
    llvm::Value* r = v;
    if (v->getType() != target) {
      r = v->getType()->isDoubleTy() ? b_.CreateFPTrunc(v, target) : b_.CreateFPExt(v, target);
    }
    return RoundTo(to, r);
  }
  if (IsFloat(from)) return FloatToIntWrapped(v, to);
  if (IsFloat(to)) return RoundTo(to, b_.CreateSIToFP(v, target));
  return b_.CreateSExtOrTrunc(v, target);
}

llvm::Value* ValueEmitter::Intrinsic(llvm::Intrinsic::ID id, llvm::Value* x, llvm::Value* y) {
  if (y == nullptr) return b_.CreateUnaryIntrinsic(id, x);
  return b_.CreateBinaryIntrinsic(id, x, y);
}

llvm::Value* ValueEmitter::MathCall(const char* f32_name, const char* f64_name, llvm::Value* x) {
  const bool is_double = x->getType()->isDoubleTy();
  llvm::FunctionCallee f = module_.getOrInsertFunction(is_double ? f64_name : f32_name,
                                                       x->getType(), x->getType());
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory();
    fn->setWillReturn();
  }
  return b_.CreateCall(f, {x});
}

llvm::Value* ValueEmitter::MathCall2(const char* f32_name, const char* f64_name, llvm::Value* x,
                                     llvm::Value* y) {
  llvm::Type* t = x->getType();
  llvm::FunctionCallee f =
      module_.getOrInsertFunction(t->isDoubleTy() ? f64_name : f32_name, t, t, t);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setOnlyAccessesInaccessibleMemory();
    fn->setWillReturn();
  }
  return b_.CreateCall(f, {x, y});
}

llvm::Value* ValueEmitter::FastExp(llvm::Value* x) {
  // 2^(x*log2 e): split into integer n and fraction f in [-0.5, 0.5]; a degree-6
  // Taylor polynomial for 2^f, 2^n by building the exponent bits.
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* clamped = Intrinsic(llvm::Intrinsic::minnum, Intrinsic(llvm::Intrinsic::maxnum, x, c(-87.0)), c(88.0));
  llvm::Value* s = b_.CreateFMul(clamped, c(1.4426950408889634));
  llvm::Value* n = Intrinsic(llvm::Intrinsic::rint, s);
  llvm::Value* f = b_.CreateFMul(b_.CreateFSub(s, n), c(0.6931471805599453));
  static constexpr double kCoeff[] = {1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0, 1.0};
  llvm::Value* p = c(kCoeff[0]);
  for (int i = 1; i < 7; ++i) p = b_.CreateFAdd(b_.CreateFMul(p, f), c(kCoeff[i]));
  llvm::Value* bits = b_.CreateShl(b_.CreateAdd(b_.CreateFPToSI(n, b_.getInt32Ty()), b_.getInt32(127)), 23);
  llvm::Value* scale = b_.CreateBitCast(bits, t);
  llvm::Value* r = b_.CreateFMul(p, scale);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
}

llvm::Value* ValueEmitter::AccurateExp(llvm::Value* x) {
  if (options_.inline_exp && x->getType()->isFloatTy()) return EmitAccurateExpF32(b_, x);
  return MathCall("expf", "exp", x);
}

llvm::Value* ValueEmitter::ApproxExp(llvm::Value* x) {
  llvm::Value* s = b_.CreateFMul(x, llvm::ConstantFP::get(x->getType(), 1.4426950408889634));
  return b_.CreateCall(
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_ex2_approx_f), {s});
}

llvm::Value* ValueEmitter::ApproxSigmoid(llvm::Value* x) {
  // t = e^-|x| in (0, 1]; r = 1 / (1 + t) needs no denormal or overflow care;
  // x >= 0: r, else t * r (t keeps the tiny results of very negative x).
  llvm::Type* t = x->getType();
  llvm::Value* e = ApproxExp(b_.CreateFNeg(Intrinsic(llvm::Intrinsic::fabs, x)));
  llvm::Value* r = b_.CreateCall(
      llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_rcp_approx_ftz_f),
      {b_.CreateFAdd(llvm::ConstantFP::get(t, 1.0), e)});
  // A NaN x makes e, r and t * r NaN: no separate check.
  return b_.CreateSelect(b_.CreateFCmpOGE(x, llvm::ConstantFP::get(t, 0.0)), r, b_.CreateFMul(e, r));
}

llvm::Value* ValueEmitter::FastTanh(llvm::Value* x) {
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* e = FastExp(b_.CreateFMul(x, c(2.0)));
  llvm::Value* big = b_.CreateFDiv(b_.CreateFSub(e, c(1.0)), b_.CreateFAdd(e, c(1.0)));
  llvm::Value* x2 = b_.CreateFMul(x, x);
  llvm::Value* small = b_.CreateFMul(x, b_.CreateFSub(c(1.0), b_.CreateFMul(x2, c(1.0 / 3))));
  llvm::Value* is_small = b_.CreateFCmpOLT(Intrinsic(llvm::Intrinsic::fabs, x), c(0.004));
  return b_.CreateSelect(is_small, small, big);
}

llvm::Value* ValueEmitter::EmitUnary(Op op, DType dtype, llvm::Value* x) {
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  if (!IsFloat(dtype)) {
    llvm::Value* zero = llvm::ConstantInt::get(t, 0);
    if (op == Op::kNeg) return b_.CreateSub(zero, x);
    if (op == Op::kAbs) return b_.CreateSelect(b_.CreateICmpSLT(x, zero), b_.CreateSub(zero, x), x);
    if (op == Op::kRelu) return Intrinsic(llvm::Intrinsic::smax, x, zero);
    return x;
  }
  const bool fast = options_.fast_math && !t->isDoubleTy();
  if (options_.approx_16bit_math && !fast && (dtype == DType::kF16 || dtype == DType::kBF16)) {
    if (op == Op::kExp) return ApproxExp(x);
    if (op == Op::kSigmoid) return ApproxSigmoid(x);
  }
  switch (op) {
    case Op::kNeg: return b_.CreateFNeg(x);
    case Op::kAbs: return Intrinsic(llvm::Intrinsic::fabs, x);
    case Op::kExp: return fast ? FastExp(x) : AccurateExp(x);
    case Op::kLog: return MathCall("logf", "log", x);
    case Op::kSqrt: return Intrinsic(llvm::Intrinsic::sqrt, x);
    case Op::kRsqrt: return b_.CreateFDiv(c(1.0), Intrinsic(llvm::Intrinsic::sqrt, x));
    case Op::kReciprocal: return b_.CreateFDiv(c(1.0), x);
    case Op::kTanh: return fast ? FastTanh(x) : MathCall("tanhf", "tanh", x);
    case Op::kSigmoid: {
      if (fast) return b_.CreateFDiv(c(1.0), b_.CreateFAdd(c(1.0), FastExp(b_.CreateFNeg(x))));
      // t = e^-|x| never overflows: x >= 0 gives 1 / (1 + t), x < 0 gives
      // t / (1 + t), which keeps the tiny results of very negative x
      // (1 / (1 + e^-x) is 1 / inf = 0 there). A NaN x stays NaN.
      llvm::Value* e = AccurateExp(b_.CreateFNeg(Intrinsic(llvm::Intrinsic::fabs, x)));
      llvm::Value* r = b_.CreateFDiv(c(1.0), b_.CreateFAdd(c(1.0), e));
      return b_.CreateSelect(b_.CreateFCmpOGE(x, c(0.0)), r, b_.CreateFMul(e, r));
    }
    case Op::kRelu: return Intrinsic(llvm::Intrinsic::maximum, x, c(0.0));
    case Op::kErf: return MathCall("erff", "erf", x);
    case Op::kSin: return MathCall("sinf", "sin", x);
    case Op::kCos: return MathCall("cosf", "cos", x);
    case Op::kFloor: return Intrinsic(llvm::Intrinsic::floor, x);
    case Op::kCeil: return Intrinsic(llvm::Intrinsic::ceil, x);
    case Op::kRound: return Intrinsic(llvm::Intrinsic::roundeven, x);
    default: return x;
  }
}

llvm::Value* ValueEmitter::IntDiv(llvm::Value* x, llvm::Value* y) {
  // x / 0 == 0 and MIN / -1 == MIN (wraps); nothing traps.
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* minus_one = llvm::ConstantInt::get(t, -1, true);
  llvm::Value* is_zero = b_.CreateICmpEQ(y, zero);
  llvm::Value* is_minus_one = b_.CreateICmpEQ(y, minus_one);
  llvm::Value* safe = b_.CreateSelect(b_.CreateOr(is_zero, is_minus_one), llvm::ConstantInt::get(t, 1), y);
  llvm::Value* q = b_.CreateSDiv(x, safe);
  return b_.CreateSelect(is_zero, zero, b_.CreateSelect(is_minus_one, b_.CreateSub(zero, x), q));
}

llvm::Value* ValueEmitter::IntFloorDivMod(Op op, llvm::Value* x, llvm::Value* y) {
  // The truncated remainder (0 for y == 0 or -1, which srem would trap on)
  // moves into y's sign when it is nonzero and of the other sign; the
  // quotient then steps down by one.
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* unsafe = b_.CreateOr(b_.CreateICmpEQ(y, zero),
                                    b_.CreateICmpEQ(y, llvm::ConstantInt::get(t, -1, true)));
  llvm::Value* r = b_.CreateSRem(x, b_.CreateSelect(unsafe, one, y));
  llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                     b_.CreateICmpSLT(b_.CreateXor(r, y), zero));
  if (op == Op::kMod) return b_.CreateSelect(adjust, b_.CreateAdd(r, y), r);
  return b_.CreateSub(IntDiv(x, y), b_.CreateZExt(adjust, t));
}

llvm::Value* ValueEmitter::FloatFloorDivMod(Op op, llvm::Value* x, llvm::Value* y) {
  // As the reference interpreter (numpy's rule): m = fmod(x, y) moved into
  // y's sign; the quotient (x - m) / y snapped to the nearest integer.
  llvm::Type* t = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* m = MathCall2("fmodf", "fmod", x, y);
  llvm::Value* nonzero = b_.CreateFCmpUNE(m, c(0.0));  // true for NaN
  llvm::Value* adjust = b_.CreateAnd(
      nonzero, b_.CreateXor(b_.CreateFCmpOLT(y, c(0.0)), b_.CreateFCmpOLT(m, c(0.0))));
  if (op == Op::kMod) {
    llvm::Value* r = b_.CreateSelect(adjust, b_.CreateFAdd(m, y), m);
    return b_.CreateSelect(nonzero, r, Intrinsic(llvm::Intrinsic::copysign, c(0.0), y));
  }
  llvm::Value* quotient = b_.CreateFDiv(x, y);
  llvm::Value* d = b_.CreateFDiv(b_.CreateFSub(x, m), y);
  d = b_.CreateSelect(adjust, b_.CreateFSub(d, c(1.0)), d);
  llvm::Value* fl = Intrinsic(llvm::Intrinsic::floor, d);
  fl = b_.CreateSelect(b_.CreateFCmpOGT(b_.CreateFSub(d, fl), c(0.5)), b_.CreateFAdd(fl, c(1.0)), fl);
  llvm::Value* q = b_.CreateSelect(b_.CreateFCmpUNE(d, c(0.0)), fl,
                                   Intrinsic(llvm::Intrinsic::copysign, c(0.0), quotient));
  return b_.CreateSelect(b_.CreateFCmpOEQ(y, c(0.0)), quotient, q);
}

llvm::Value* ValueEmitter::EmitBinary(Op op, DType dtype, llvm::Value* x, llvm::Value* y) {
  if (dtype == DType::kBool) {
    if (op == Op::kMaximum || op == Op::kAdd) return b_.CreateOr(x, y);
    return b_.CreateAnd(x, y);
  }
  if (!IsFloat(dtype)) {
    switch (op) {
      case Op::kAdd: return b_.CreateAdd(x, y);
      case Op::kSub: return b_.CreateSub(x, y);
      case Op::kMul: return b_.CreateMul(x, y);
      case Op::kDiv: return IntDiv(x, y);
      case Op::kMod:
      case Op::kFloorDiv: return IntFloorDivMod(op, x, y);
      case Op::kMaximum: return Intrinsic(llvm::Intrinsic::smax, x, y);
      case Op::kMinimum: return Intrinsic(llvm::Intrinsic::smin, x, y);
      default: return x;
    }
  }
  switch (op) {
    case Op::kAdd: return b_.CreateFAdd(x, y);
    case Op::kSub: return b_.CreateFSub(x, y);
    case Op::kMul: return b_.CreateFMul(x, y);
    case Op::kDiv: return b_.CreateFDiv(x, y);
    case Op::kPow: return Intrinsic(llvm::Intrinsic::pow, x, y);
    case Op::kMaximum: return Intrinsic(llvm::Intrinsic::maximum, x, y);
    case Op::kMinimum: return Intrinsic(llvm::Intrinsic::minimum, x, y);
    case Op::kMod:
    case Op::kFloorDiv: return FloatFloorDivMod(op, x, y);
    default: return x;
  }
}

llvm::Value* ValueEmitter::EmitCompare(Op op, DType dtype, llvm::Value* x, llvm::Value* y) {
  using P = llvm::CmpInst::Predicate;
  if (IsFloat(dtype)) {
    P p = op == Op::kEq   ? P::FCMP_OEQ
          : op == Op::kNe ? P::FCMP_UNE
          : op == Op::kLt ? P::FCMP_OLT
          : op == Op::kLe ? P::FCMP_OLE
          : op == Op::kGt ? P::FCMP_OGT
                          : P::FCMP_OGE;
    return b_.CreateFCmp(p, x, y);
  }
  const bool u = dtype == DType::kBool;
  P p = op == Op::kEq   ? P::ICMP_EQ
        : op == Op::kNe ? P::ICMP_NE
        : op == Op::kLt ? (u ? P::ICMP_ULT : P::ICMP_SLT)
        : op == Op::kLe ? (u ? P::ICMP_ULE : P::ICMP_SLE)
        : op == Op::kGt ? (u ? P::ICMP_UGT : P::ICMP_SGT)
                        : (u ? P::ICMP_UGE : P::ICMP_SGE);
  return b_.CreateICmp(p, x, y);
}

llvm::Value* ValueEmitter::EmitOp(const Expr& e) {
  llvm::Value* a = Emit(e.a);
  switch (GetOpKind(e.op)) {
    case OpKind::kUnary: return RoundAfterOp(e.dtype, EmitUnary(e.op, e.dtype, a));
    case OpKind::kBinary: return RoundAfterOp(e.dtype, EmitBinary(e.op, e.dtype, a, Emit(e.b)));
    case OpKind::kCompare: return EmitCompare(e.op, kernel_.exprs[e.a].dtype, a, Emit(e.b));
    case OpKind::kLogic:
      if (e.op == Op::kNot) return b_.CreateNot(a);
      return e.op == Op::kAnd ? b_.CreateAnd(a, Emit(e.b)) : b_.CreateOr(a, Emit(e.b));
    case OpKind::kSelect: return b_.CreateSelect(a, Emit(e.b), Emit(e.c));
    default: return a;
  }
}

llvm::Value* ValueEmitter::RoundAfterOp(DType dtype, llvm::Value* v) {
  return options_.low_precision ? RoundTo(dtype, v) : v;
}

llvm::Value* ValueEmitter::Combine(Op combine, DType dtype, llvm::Value* acc, llvm::Value* v,
                                   bool reassoc) {
  if (IsFloat(dtype) && combine == Op::kAdd) {
    llvm::Value* sum = b_.CreateFAdd(acc, v);
    if (reassoc) {
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(sum)) {
        llvm::FastMathFlags flags = inst->getFastMathFlags();
        flags.setAllowReassoc();
        inst->setFastMathFlags(flags);
      }
    }
    return sum;
  }
  return EmitBinary(combine, dtype, acc, v);
}

llvm::Value* ValueEmitter::ArgmaxTake(DType dtype, llvm::Value* v, llvm::Value* best) {
  if (!IsFloat(dtype)) return b_.CreateICmpSGT(v, best);
  // NaN counts as the largest value; the first one wins.
  llvm::Value* first_nan = b_.CreateAnd(b_.CreateFCmpUNO(v, v), b_.CreateFCmpORD(best, best));
  return b_.CreateOr(b_.CreateFCmpOGT(v, best), first_nan);
}

}  // namespace rk::compiler::llvm_ir
