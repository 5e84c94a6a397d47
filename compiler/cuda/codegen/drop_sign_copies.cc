#include "compiler/cuda/codegen/drop_sign_copies.h"

#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {
namespace {

constexpr int kMaxDepth = 8;

bool IsFabs(llvm::Intrinsic::ID id) {
  return id == llvm::Intrinsic::fabs || id == llvm::Intrinsic::nvvm_fabs_f ||
         id == llvm::Intrinsic::nvvm_fabs_ftz_f;
}

// Whether v's sign bit is clear whenever v is not a NaN.
bool SignClear(const llvm::Value* v, int depth) {
  if (depth > kMaxDepth) return false;
  if (const auto* c = llvm::dyn_cast<llvm::ConstantFP>(v)) return !c->isNegative();
  if (const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(v)) {
    const llvm::Intrinsic::ID id = call->getIntrinsicID();
    if (IsFabs(id)) return true;
    switch (id) {
      case llvm::Intrinsic::exp:
      case llvm::Intrinsic::exp2:
      case llvm::Intrinsic::nvvm_ex2_approx_f:
      case llvm::Intrinsic::nvvm_ex2_approx_ftz_f:
        return true;
      case llvm::Intrinsic::copysign:
        return SignClear(call->getArgOperand(1), depth + 1);
      default:
        return false;
    }
  }
  const auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
  if (inst == nullptr) return false;
  switch (inst->getOpcode()) {
    case llvm::Instruction::FMul:
    case llvm::Instruction::FDiv:
    case llvm::Instruction::FAdd:
      return SignClear(inst->getOperand(0), depth + 1) &&
             SignClear(inst->getOperand(1), depth + 1);
    case llvm::Instruction::Select:
      return SignClear(inst->getOperand(1), depth + 1) &&
             SignClear(inst->getOperand(2), depth + 1);
    case llvm::Instruction::FPExt:
    case llvm::Instruction::FPTrunc:
      return SignClear(inst->getOperand(0), depth + 1);
    default:
      return false;
  }
}

}  // namespace

int DropSignCopies(llvm::Module& module) {
  std::vector<llvm::IntrinsicInst*> copies, absolutes;
  for (llvm::Function& f : module) {
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (call == nullptr) continue;
      const llvm::Intrinsic::ID id = call->getIntrinsicID();
      if (id == llvm::Intrinsic::copysign && SignClear(call->getArgOperand(1), 0)) {
        copies.push_back(call);
      } else if (IsFabs(id) && SignClear(call->getArgOperand(0), 1)) {
        absolutes.push_back(call);
      }
    }
  }
  for (llvm::IntrinsicInst* call : copies) {
    llvm::IRBuilder<> b(call);
    call->replaceAllUsesWith(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, call->getArgOperand(0)));
    call->eraseFromParent();
  }
  for (llvm::IntrinsicInst* call : absolutes) {
    call->replaceAllUsesWith(call->getArgOperand(0));
    call->eraseFromParent();
  }
  return static_cast<int>(copies.size() + absolutes.size());
}

}  // namespace rk::compiler::cuda
