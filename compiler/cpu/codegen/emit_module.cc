#include "compiler/cpu/codegen/emit_module.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "compiler/llvm_ir/value_emitter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler::cpu {
namespace {

using kernel::Kernel;
using kernel::Stmt;
using kernel::StmtKind;

class KernelEmitter {
 public:
  KernelEmitter(llvm::Module& module, const llvm_ir::CodegenOptions& options,
                const kernel::Program& program, const Kernel& kernel)
      : module_(module), ctx_(module.getContext()), b_(ctx_), options_(options),
        program_(program), kernel_(kernel), values_(b_, module, options, program, kernel) {}

  llvm::Function* EmitKernel();
  llvm::Function* EmitThunk(llvm::Function* kernel_fn);

 private:
  void EmitStmts(const std::vector<Stmt>& body, bool top);
  void EmitStmt(const Stmt& s, bool top);
  void EmitLoop(const Stmt& s, bool top);
  bool IsInnermost(const Stmt& loop) const;
  void EmitTreeReduction(const Stmt& loop, const Stmt& update);
  // Emits `for (iv = lo; iv < hi; ++iv) body(iv)` and leaves the builder
  // after it. `hi` may be a runtime value.
  void EmitCountedLoop(llvm::Value* lo, llvm::Value* hi,
                       const std::function<void(llvm::Value*)>& body);
  llvm::MDNode* LoopMetadata();

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const llvm_ir::CodegenOptions& options_;
  const kernel::Program& program_;
  const Kernel& kernel_;
  llvm_ir::ValueEmitter values_;
  llvm::Function* fn_ = nullptr;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
};

std::vector<int32_t> KernelBuffers(const Kernel& k) {
  std::vector<int32_t> all = k.reads;
  all.insert(all.end(), k.writes.begin(), k.writes.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

llvm::Function* KernelEmitter::EmitKernel() {
  const std::vector<int32_t> buffers = KernelBuffers(kernel_);
  std::vector<llvm::Type*> params(buffers.size(), b_.getPtrTy());
  params.push_back(b_.getInt64Ty());  // begin
  params.push_back(b_.getInt64Ty());  // end
  params.push_back(b_.getInt64Ty());  // run counter
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  fn_ = llvm::Function::Create(type, llvm::Function::InternalLinkage, "kernel", module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  values_.buffers.assign(program_.buffers.size(), nullptr);
  for (size_t i = 0; i < buffers.size(); ++i) {
    fn_->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    values_.buffers[buffers[i]] = fn_->getArg(static_cast<unsigned>(i));
  }
  begin_ = fn_->getArg(static_cast<unsigned>(buffers.size()));
  end_ = fn_->getArg(static_cast<unsigned>(buffers.size() + 1));
  values_.run_counter = fn_->getArg(static_cast<unsigned>(buffers.size() + 2));
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  if (options_.fast_math) {
    llvm::FastMathFlags flags;
    flags.setAllowReassoc();
    flags.setAllowContract();
    flags.setApproxFunc();
    flags.setAllowReciprocal();
    b_.setFastMathFlags(flags);
  }
  for (DType acc : kernel_.accumulators) {
    values_.accs.push_back(b_.CreateAlloca(values_.ComputeType(acc)));
  }
  for (int32_t local : kernel_.locals) {
    const auto& buf = program_.buffers[local];
    values_.buffers[local] = b_.CreateAlloca(values_.StorageType(buf.type.dtype),
                                             b_.getInt64(buf.type.num_elements()));
  }
  values_.vars.assign(kernel_.num_vars, nullptr);
  EmitStmts(kernel_.body, kernel_.body.size() == 1);
  b_.CreateRetVoid();
  return fn_;
}

void KernelEmitter::EmitStmts(const std::vector<Stmt>& body, bool top) {
  for (const Stmt& s : body) EmitStmt(s, top);
}

void KernelEmitter::EmitStmt(const Stmt& s, bool top) {
  values_.ClearCache();
  switch (s.kind) {
    case StmtKind::kLoop: EmitLoop(s, top); return;
    case StmtKind::kStore: {
      const DType dtype = program_.buffers[s.buffer].type.dtype;
      llvm::Value* value = values_.ToStorage(values_.Emit(s.value), dtype);
      b_.CreateStore(value, values_.Pointer(s.buffer, values_.Emit(s.index)));
      return;
    }
    case StmtKind::kAccInit: b_.CreateStore(values_.Emit(s.value), values_.accs[s.acc]); return;
    case StmtKind::kAccUpdate: {
      const DType dtype = kernel_.accumulators[s.acc];
      llvm::Value* acc = b_.CreateLoad(values_.ComputeType(dtype), values_.accs[s.acc]);
      llvm::Value* next = values_.Combine(s.combine, dtype, acc, values_.Emit(s.value),
                                          s.order == kernel::AccumulationOrder::kReassociated);
      b_.CreateStore(next, values_.accs[s.acc]);
      return;
    }
    case StmtKind::kArgmaxUpdate: {
      const DType dtype = kernel_.accumulators[s.acc];
      llvm::Value* best = b_.CreateLoad(values_.ComputeType(dtype), values_.accs[s.acc]);
      llvm::Value* index = b_.CreateLoad(b_.getInt64Ty(), values_.accs[s.acc + 1]);
      llvm::Value* v = values_.Emit(s.value);
      llvm::Value* take = values_.ArgmaxTake(dtype, v, best);
      b_.CreateStore(b_.CreateSelect(take, v, best), values_.accs[s.acc]);
      b_.CreateStore(b_.CreateSelect(take, values_.Emit(s.index), index), values_.accs[s.acc + 1]);
      return;
    }
    case StmtKind::kNullLoad: {
      llvm::Value* bad = b_.CreateIntToPtr(b_.getInt64(8), b_.getPtrTy());
      b_.CreateLoad(b_.getInt32Ty(), bad, /*isVolatile=*/true);
      return;
    }
  }
}

bool KernelEmitter::IsInnermost(const Stmt& loop) const {
  for (const Stmt& s : loop.body) {
    if (s.kind == StmtKind::kLoop) return false;
  }
  return true;
}

llvm::MDNode* KernelEmitter::LoopMetadata() {
  std::vector<llvm::Metadata*> ops;
  llvm::TempMDTuple temp = llvm::MDNode::getTemporary(ctx_, {});
  ops.push_back(temp.get());
  const int w = options_.vector_width;
  ops.push_back(llvm::MDNode::get(
      ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.width"),
             llvm::ConstantAsMetadata::get(b_.getInt32(w))}));
  ops.push_back(llvm::MDNode::get(
      ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
             llvm::ConstantAsMetadata::get(b_.getInt1(w > 1))}));
  llvm::MDNode* node = llvm::MDNode::getDistinct(ctx_, ops);
  node->replaceOperandWith(0, node);
  return node;
}

void KernelEmitter::EmitCountedLoop(llvm::Value* lo, llvm::Value* hi,
                                    const std::function<void(llvm::Value*)>& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "after", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), loop, exit);
  b_.SetInsertPoint(loop);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2);
  iv->addIncoming(lo, pre);
  body(iv);
  llvm::Value* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
  b_.CreateCondBr(b_.CreateICmpSLT(next, hi), loop, exit);
  iv->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(exit);
}

// kernel::AccumulationOrder::kTree: for each block of kTreeBlockSize elements,
// a left-to-right partial sum; then, with a stack of partial sums as in a
// binary counter, block b merges with the stack top once per trailing one bit
// of b (so complete subtrees combine as soon as they exist); at the end the
// stack folds from the top down (the unpaired rest of the tree).
void KernelEmitter::EmitTreeReduction(const Stmt& loop, const Stmt& update) {
  const DType dtype = kernel_.accumulators[update.acc];
  llvm::Type* t = values_.ComputeType(dtype);
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  const int64_t n = loop.extent;
  const int64_t block = kernel::kTreeBlockSize;
  const int64_t blocks = (n + block - 1) / block;
  // Scratch in the entry block (promoted to registers by mem2reg, but the
  // stack, whose depth is at most log2(blocks) + 1 <= 64).
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().getFirstInsertionPt());
  llvm::Value* stack = entry.CreateAlloca(t, entry.getInt64(64));
  llvm::Value* depth = entry.CreateAlloca(i64);
  llvm::Value* partial = entry.CreateAlloca(t);
  llvm::Value* carry = entry.CreateAlloca(i64);
  b_.CreateStore(b_.getInt64(0), depth);
  EmitCountedLoop(b_.getInt64(0), b_.getInt64(blocks), [&](llvm::Value* blk) {
    llvm::Value* first = b_.CreateMul(blk, b_.getInt64(block), "", true, true);
    llvm::Value* last = b_.CreateSelect(b_.CreateICmpEQ(blk, b_.getInt64(blocks - 1)),
                                        b_.getInt64(n), b_.CreateAdd(first, b_.getInt64(block)));
    b_.CreateStore(zero, partial);
    EmitCountedLoop(first, last, [&](llvm::Value* i) {
      values_.ClearCache();
      values_.vars[loop.var] = i;
      llvm::Value* sum = values_.Combine(Op::kAdd, dtype, b_.CreateLoad(t, partial),
                                         values_.Emit(update.value), /*reassoc=*/false);
      b_.CreateStore(sum, partial);
    });
    values_.ClearCache();
    // while (carry & 1) { partial = stack[--depth] + partial; carry >>= 1; }
    b_.CreateStore(blk, carry);
    llvm::BasicBlock* test = llvm::BasicBlock::Create(ctx_, "tree_test", fn_);
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "tree_merge", fn_);
    llvm::BasicBlock* push = llvm::BasicBlock::Create(ctx_, "tree_push", fn_);
    b_.CreateBr(test);
    b_.SetInsertPoint(test);
    llvm::Value* c = b_.CreateLoad(i64, carry);
    b_.CreateCondBr(b_.CreateICmpNE(b_.CreateAnd(c, 1), b_.getInt64(0)), merge, push);
    b_.SetInsertPoint(merge);
    llvm::Value* top = b_.CreateSub(b_.CreateLoad(i64, depth), b_.getInt64(1));
    b_.CreateStore(top, depth);
    llvm::Value* left = b_.CreateLoad(t, b_.CreateInBoundsGEP(t, stack, top));
    b_.CreateStore(values_.Combine(Op::kAdd, dtype, left, b_.CreateLoad(t, partial), false),
                   partial);
    b_.CreateStore(b_.CreateLShr(c, 1), carry);
    b_.CreateBr(test);
    b_.SetInsertPoint(push);
    llvm::Value* d = b_.CreateLoad(i64, depth);
    b_.CreateStore(b_.CreateLoad(t, partial), b_.CreateInBoundsGEP(t, stack, d));
    b_.CreateStore(b_.CreateAdd(d, b_.getInt64(1)), depth);
  });
  // total = stack[depth-1]; then total = stack[k] + total for k = depth-2 .. 0.
  b_.CreateStore(zero, partial);
  llvm::Value* final_depth = b_.CreateLoad(i64, depth);
  EmitCountedLoop(b_.getInt64(0), final_depth, [&](llvm::Value* k) {
    llvm::Value* index = b_.CreateSub(b_.CreateSub(final_depth, b_.getInt64(1)), k);
    llvm::Value* left = b_.CreateLoad(t, b_.CreateInBoundsGEP(t, stack, index));
    llvm::Value* sum = b_.CreateSelect(
        b_.CreateICmpEQ(k, b_.getInt64(0)), left,
        values_.Combine(Op::kAdd, dtype, left, b_.CreateLoad(t, partial), false));
    b_.CreateStore(sum, partial);
  });
  llvm::Value* acc = b_.CreateLoad(t, values_.accs[update.acc]);
  b_.CreateStore(values_.Combine(Op::kAdd, dtype, acc, b_.CreateLoad(t, partial), false),
                 values_.accs[update.acc]);
  values_.ClearCache();
}

void KernelEmitter::EmitLoop(const Stmt& s, bool top) {
  if (s.extent <= 0) return;
  if (!top && s.body.size() == 1 && s.body[0].kind == StmtKind::kAccUpdate &&
      s.body[0].order == kernel::AccumulationOrder::kTree) {
    EmitTreeReduction(s, s.body[0]);
    return;
  }
  llvm::Value* lo = top ? begin_ : b_.getInt64(0);
  llvm::Value* hi = top ? end_ : b_.getInt64(s.extent);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "loop", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "after", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), body, exit);
  b_.SetInsertPoint(body);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2);
  iv->addIncoming(lo, pre);
  values_.vars[s.var] = iv;
  EmitStmts(s.body, false);
  llvm::Value* next = b_.CreateAdd(iv, b_.getInt64(1), "", true, true);
  llvm::BranchInst* br = b_.CreateCondBr(b_.CreateICmpSLT(next, hi), body, exit);
  if (options_.vector_width > 0 && IsInnermost(s)) {
    br->setMetadata(llvm::LLVMContext::MD_loop, LoopMetadata());
  }
  iv->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(exit);
  values_.ClearCache();
}

llvm::Function* KernelEmitter::EmitThunk(llvm::Function* kernel_fn) {
  auto* type = llvm::FunctionType::get(
      b_.getVoidTy(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
  auto* thunk = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kThunkName, module_);
  thunk->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", thunk));
  std::vector<llvm::Value*> args;
  const size_t num_buffers = KernelBuffers(kernel_).size();
  for (size_t i = 0; i < num_buffers; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(b.getPtrTy(), thunk->getArg(0), i);
    args.push_back(b.CreateLoad(b.getPtrTy(), slot));
  }
  args.push_back(thunk->getArg(1));
  args.push_back(thunk->getArg(2));
  args.push_back(thunk->getArg(3));
  b.CreateCall(kernel_fn, args);
  b.CreateRetVoid();
  return thunk;
}

}  // namespace

std::vector<int32_t> KernelArguments(const kernel::Kernel& kernel) {
  return KernelBuffers(kernel);
}

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitKernelModule(const kernel::Program& program,
                                                               const kernel::Kernel& kernel,
                                                               const llvm_ir::CodegenOptions& options,
                                                               llvm::LLVMContext& context,
                                                               bool verify) {
  auto module = std::make_unique<llvm::Module>("rk_kernel", context);
  KernelEmitter emitter(*module, options, program, kernel);
  emitter.EmitThunk(emitter.EmitKernel());
  if (verify) {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*module, &os)) {
      return absl::InternalError(absl::StrCat("codegen produced invalid LLVM IR for ", kernel.name,
                                              ": ", os.str()));
    }
  }
  return module;
}

}  // namespace rk::compiler::cpu
