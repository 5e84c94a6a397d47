#include "compiler/cuda/codegen/nvptx_emitter.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/thread_rows.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

using kernel::Stmt;
using kernel::StmtKind;

namespace {

std::vector<int32_t> KernelBuffers(const kernel::Kernel& k) {
  std::vector<int32_t> all = k.reads;
  all.insert(all.end(), k.writes.begin(), k.writes.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

void Annotate(llvm::Module& module, llvm::Function* fn, const char* key, int value) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Metadata* ops[] = {
      llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, key),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
  module.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx, ops));
}

NvptxKernel::NvptxKernel(llvm::Module& module, const llvm_ir::CodegenOptions& options,
                         const kernel::Program& program, std::vector<kernel::Kernel> kernels,
                         std::vector<KernelShape> shapes)
    : module_(module), ctx_(module.getContext()), b_(ctx_), options_(options), program_(program) {
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto stage = std::make_unique<Stage>();
    stage->kernel = std::move(kernels[i]);
    stage->shape = std::move(shapes[i]);
    stage->values = std::make_unique<llvm_ir::ValueEmitter>(b_, module_, options_, program_,
                                                            stage->kernel);
    stages_.push_back(std::move(stage));
  }
  UseStage(0);
}

void NvptxKernel::UseStage(size_t i) {
  kernel_ = &stages_[i]->kernel;
  shape_ = &stages_[i]->shape;
  values_ = stages_[i]->values.get();
  values_->ClearCache();
}

void NvptxKernel::Begin(KernelLaunch& launch, const std::string& suffix, bool scratch,
                        int tensor_maps) {
  std::vector<int32_t> writes, reads;
  launch.buffers.clear();
  for (const auto& stage : stages_) {
    for (int32_t b : KernelBuffers(stage->kernel)) launch.buffers.push_back(b);
    writes.insert(writes.end(), stage->kernel.writes.begin(), stage->kernel.writes.end());
    reads.insert(reads.end(), stage->kernel.reads.begin(), stage->kernel.reads.end());
  }
  std::sort(reads.begin(), reads.end());
  std::sort(launch.buffers.begin(), launch.buffers.end());
  launch.buffers.erase(std::unique(launch.buffers.begin(), launch.buffers.end()),
                       launch.buffers.end());
  std::sort(writes.begin(), writes.end());
  // Vector widths follow the widest element streamed; a row reduction's
  // one-value-per-row buffers (a row's max, mean) do not count.
  max_elem_bytes_ = 1;
  for (int32_t b : launch.buffers) {
    const TensorType& t = program_.buffers[b].type;
    if (shape_->form == KernelForm::kRowReduction && t.num_elements() <= shape_->work) continue;
    max_elem_bytes_ = std::max(max_elem_bytes_, DTypeSize(t.dtype));
  }
  value_ops_ = 0;
  for (const auto& stage : stages_) {
    for (const kernel::Expr& e : stage->kernel.exprs) {
      if (e.kind == kernel::ExprKind::kOp || e.kind == kernel::ExprKind::kCast) ++value_ops_;
    }
  }
  const bool group = stages_.size() > 1;
  launch.entry = "rk_" + kernel_->name + suffix;
  launch.form = shape_->form;
  launch.work = shape_->work;
  const unsigned scratch_params = scratch ? 1 : 0;
  std::vector<llvm::Type*> params(launch.buffers.size() + scratch_params, b_.getPtrTy());
  params.push_back(b_.getInt64Ty());  // run counter
  const unsigned first_map = static_cast<unsigned>(params.size());
  for (int i = 0; i < tensor_maps; ++i) params.push_back(b_.getPtrTy());
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, launch.entry, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  Annotate(module_, fn_, "kernel", 1);
  for (size_t i = 0; i < launch.buffers.size(); ++i) {
    const unsigned arg = static_cast<unsigned>(i);
    // Every buffer starts 64-byte aligned (allocations; the arena's offsets).
    fn_->addParamAttr(arg, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(16)));
    const bool written = std::binary_search(writes.begin(), writes.end(), launch.buffers[i]);
    const bool read = std::binary_search(reads.begin(), reads.end(), launch.buffers[i]);
    // In a row group, threads of a block pass values through buffers that are
    // written and read, across barriers: noalias would let LLVM move those
    // loads past them.
    if (!group || !written || !read) fn_->addParamAttr(arg, llvm::Attribute::NoAlias);
    if (!written) fn_->addParamAttr(arg, llvm::Attribute::ReadOnly);
  }
  scratch_ = nullptr;
  if (scratch) {
    const unsigned arg = static_cast<unsigned>(launch.buffers.size());
    fn_->addParamAttr(arg, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(16)));
    fn_->addParamAttr(arg, llvm::Attribute::NoAlias);
    scratch_ = fn_->getArg(arg);
  }
  entry_block_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry_block_);
  // Tensor maps by value, read in place as grid constants (their generic
  // address is `cvta.param`'s).
  tensor_maps_.clear();
  std::vector<llvm::Metadata*> grid_constants;  // 1-based parameter numbers
  for (int i = 0; i < tensor_maps; ++i) {
    const unsigned arg = first_map + static_cast<unsigned>(i);
    llvm::Type* map = llvm::ArrayType::get(b_.getInt8Ty(), 128);
    fn_->addParamAttr(arg, llvm::Attribute::getWithByValType(ctx_, map));
    fn_->addParamAttr(arg, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    grid_constants.push_back(llvm::ConstantAsMetadata::get(b_.getInt32(arg + 1)));
    tensor_maps_.push_back(b_.CreatePtrToInt(fn_->getArg(arg), b_.getInt64Ty()));
  }
  if (tensor_maps > 0) {
    llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(fn_),
                             llvm::MDString::get(ctx_, "grid_constant"),
                             llvm::MDNode::get(ctx_, grid_constants)};
    module_.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(ctx_, ops));
  }
  if (options_.fast_math) {
    llvm::FastMathFlags flags;
    flags.setAllowReassoc();
    flags.setAllowContract();
    flags.setApproxFunc();
    flags.setAllowReciprocal();
    b_.setFastMathFlags(flags);
  }
  for (size_t s = 0; s < stages_.size(); ++s) {
    UseStage(s);
    values_->buffers.assign(program_.buffers.size(), nullptr);
    for (size_t i = 0; i < launch.buffers.size(); ++i) {
      values_->buffers[launch.buffers[i]] = fn_->getArg(static_cast<unsigned>(i));
    }
    values_->run_counter =
        fn_->getArg(static_cast<unsigned>(launch.buffers.size()) + scratch_params);
    values_->accs.clear();
    for (DType acc : kernel_->accumulators) {
      values_->accs.push_back(b_.CreateAlloca(values_->ComputeType(acc)));
    }
    for (int32_t local : kernel_->locals) {
      if (shape_->form == KernelForm::kMatmul) break;  // the tiles replace the row
      const auto& buf = program_.buffers[local];
      values_->buffers[local] = b_.CreateAlloca(values_->StorageType(buf.type.dtype),
                                                b_.getInt64(buf.type.num_elements()));
    }
    values_->vars.assign(kernel_->num_vars, b_.getInt64(0));
  }
  UseStage(0);
  if (shape_->null_load) {
    llvm::Value* bad = b_.CreateIntToPtr(b_.getInt64(8), b_.getPtrTy());
    b_.CreateLoad(b_.getInt32Ty(), bad, /*isVolatile=*/true);
  }
}

void NvptxKernel::Emit(KernelLaunch& launch) {
  Begin(launch, "", false, WgmmaTensorMaps());
  switch (shape_->form) {
    case KernelForm::kGridStride: {
      const int threads = shape_->thread_per_row ? kThreadRowBlockThreads : kGridStrideThreads;
      launch.block = {static_cast<uint32_t>(threads), 1, 1};
      Annotate(module_, fn_, "maxntidx", threads);
      launch.work = 1;
      for (const LoopChain& phase : shape_->phases) {
        const int64_t inner = phase.loops.empty() ? 1 : phase.loops.back()->extent;
        launch.work = std::max(launch.work, phase.points / VectorWidth(phase.points, inner));
      }
      EmitGridStride();
      break;
    }
    case KernelForm::kRowReduction: EmitRowReduction(launch); break;
    case KernelForm::kMatmul: EmitMatmul(launch); break;
    case KernelForm::kRowPartials:
    case KernelForm::kRowCombine: break;  // launch forms of EmitSplit, never a shape's
  }
  b_.CreateRetVoid();
}

llvm::Value* NvptxKernel::Special(unsigned intrinsic) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, intrinsic);
  return b_.CreateZExt(b_.CreateCall(f), b_.getInt64Ty());
}

void NvptxKernel::Barrier() {
  b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_barrier0));
}

llvm::Value* NvptxKernel::SharedArray(llvm::Type* element, int64_t count, const char* name) {
  auto* type = llvm::ArrayType::get(element, count);
  auto* array = new llvm::GlobalVariable(module_, type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(type),
                                         absl::StrCat(fn_->getName().str(), "_", name), nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  // The vectorizer reads partials 16 bytes at a time; row groups place
  // several arrays of any length one after another.
  array->setAlignment(llvm::Align(16));
  return array;
}

void NvptxKernel::If(llvm::Value* cond, const std::function<void()>& then) {
  llvm::BasicBlock* yes = llvm::BasicBlock::Create(ctx_, "then", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  b_.CreateCondBr(cond, yes, done);
  b_.SetInsertPoint(yes);
  then();
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  values_->ClearCache();
}

void NvptxKernel::ForLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* step,
                          const std::function<void(llvm::Value*)>& body, int unroll) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "after", fn_);
  b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), loop, exit);
  b_.SetInsertPoint(loop);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2);
  iv->addIncoming(lo, pre);
  values_->ClearCache();
  body(iv);
  llvm::Value* next = b_.CreateAdd(iv, step, "", true, true);
  llvm::BranchInst* br = b_.CreateCondBr(b_.CreateICmpSLT(next, hi), loop, exit);
  // Unrolling these loops costs compile time and mostly buys little: the
  // parallelism is across threads, and the matmul step is unrolled by hand.
  // Long streaming loops ask for it: more loads in flight a thread.
  llvm::Metadata* hint =
      unroll > 1
          ? llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.count"),
                                     llvm::ConstantAsMetadata::get(b_.getInt32(unroll))})
          : llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")});
  llvm::TempMDTuple temp = llvm::MDNode::getTemporary(ctx_, {});
  llvm::Metadata* ops[] = {temp.get(), hint};
  llvm::MDNode* md = llvm::MDNode::getDistinct(ctx_, ops);
  md->replaceOperandWith(0, md);
  br->setMetadata(llvm::LLVMContext::MD_loop, md);
  iv->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(exit);
  values_->ClearCache();
}

void NvptxKernel::SetChainVars(const LoopChain& chain, llvm::Value* flat) {
  values_->ClearCache();
  if (chain.loops.empty()) return;
  // 32-bit index arithmetic when it fits: division by constants is cheaper.
  const bool narrow = chain.points < (int64_t{1} << 31);
  llvm::Type* t = narrow ? b_.getInt32Ty() : b_.getInt64Ty();
  llvm::Value* rest = narrow ? b_.CreateTrunc(flat, t) : flat;
  for (size_t i = chain.loops.size(); i-- > 0;) {
    const Stmt& loop = *chain.loops[i];
    llvm::Value* v = rest;
    if (i > 0) {
      llvm::Value* extent = llvm::ConstantInt::get(t, loop.extent);
      v = b_.CreateURem(rest, extent);
      rest = b_.CreateUDiv(rest, extent);
    }
    values_->vars[loop.var] = narrow ? b_.CreateZExt(v, b_.getInt64Ty()) : v;
  }
}

void NvptxKernel::StridedChain(const LoopChain& chain, llvm::Value* first, llvm::Value* step) {
  if (chain.points <= 0) return;
  ForLoop(first, b_.getInt64(chain.points), step, [&](llvm::Value* p) {
    SetChainVars(chain, p);
    EmitStmts(chain.body);
  });
}

void NvptxKernel::EmitStmts(const std::vector<const Stmt*>& stmts) {
  for (const Stmt* s : stmts) EmitStmt(*s);
}

namespace {

// Loads reachable from `id`.
void CollectLoads(const kernel::Kernel& k, int32_t id, std::vector<int32_t>& out) {
  if (id < 0) return;
  const kernel::Expr& e = k.exprs[id];
  if (e.kind == kernel::ExprKind::kLoad) out.push_back(id);
  CollectLoads(k, e.a, out);
  CollectLoads(k, e.b, out);
  CollectLoads(k, e.c, out);
}

}  // namespace

void NvptxKernel::EmitStmt(const Stmt& s) {
  values_->ClearCache();
  switch (s.kind) {
    case StmtKind::kLoop: {
      if (s.extent <= 0) return;
      // A thread's own row of a window (thread_rows.h): its short loops
      // inside the row's outermost one (a window's kh and kw) unrolled, so
      // their bounds checks and offsets fold.
      int unroll = 1;
      if (shape_->thread_per_row && s.extent <= kUnrolledWindowExtent) {
        const std::vector<const Stmt*>& row = shape_->phases[0].body;
        if (std::find(row.begin(), row.end(), &s) == row.end()) unroll = static_cast<int>(s.extent);
      }
      ForLoop(b_.getInt64(0), b_.getInt64(s.extent), b_.getInt64(1), [&](llvm::Value* iv) {
        values_->vars[s.var] = iv;
        for (const Stmt& c : s.body) EmitStmt(c);
      }, unroll);
      return;
    }
    case StmtKind::kStore: {
      const DType dtype = program_.buffers[s.buffer].type.dtype;
      llvm::Value* value = values_->ToStorage(values_->Emit(s.value), dtype);
      b_.CreateStore(value, values_->Pointer(s.buffer, values_->Emit(s.index)));
      return;
    }
    case StmtKind::kAccInit: b_.CreateStore(values_->Emit(s.value), values_->accs[s.acc]); return;
    case StmtKind::kAccUpdate: {
      const DType dtype = kernel_->accumulators[s.acc];
      llvm::Value* acc = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[s.acc]);
      b_.CreateStore(values_->Combine(s.combine, dtype, acc, values_->Emit(s.value), false),
                     values_->accs[s.acc]);
      return;
    }
    case StmtKind::kArgmaxUpdate: {
      const DType dtype = kernel_->accumulators[s.acc];
      llvm::Value* best = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[s.acc]);
      llvm::Value* index = b_.CreateLoad(b_.getInt64Ty(), values_->accs[s.acc + 1]);
      llvm::Value* v = values_->Emit(s.value);
      llvm::Value* take = values_->ArgmaxTake(dtype, v, best);
      b_.CreateStore(b_.CreateSelect(take, v, best), values_->accs[s.acc]);
      b_.CreateStore(b_.CreateSelect(take, values_->Emit(s.index), index), values_->accs[s.acc + 1]);
      return;
    }
    case StmtKind::kNullLoad: {
      llvm::Value* bad = b_.CreateIntToPtr(b_.getInt64(8), b_.getPtrTy());
      b_.CreateLoad(b_.getInt32Ty(), bad, /*isVolatile=*/true);
      return;
    }
  }
}

void NvptxKernel::EmitGridStride() {
  llvm::Value* ntid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value* first = b_.CreateAdd(
      b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), ntid),
      Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  llvm::Value* step = b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), ntid);
  for (const LoopChain& phase : shape_->phases) {
    const int64_t inner = phase.loops.empty() ? 1 : phase.loops.back()->extent;
    const int width = VectorWidth(phase.points, inner);
    if (width == 1) {
      StridedChain(phase, first, step);
      continue;
    }
    ForLoop(first, b_.getInt64(phase.points / width), step, [&](llvm::Value* q) {
      VectorPoints(phase, b_.CreateMul(q, b_.getInt64(width), "", true, true), width);
    });
  }
}

int NvptxKernel::VectorWidth(int64_t points, int64_t inner_extent) const {
  // Neighbouring rows on neighbouring lanes is what makes its loads coalesce.
  if (shape_->thread_per_row) return 1;
  int width = std::max(1, 16 / max_elem_bytes_);
  // A thread's points are unrolled: long elementwise bodies take fewer, as
  // ptxas's time grows faster than linearly with the body (and such kernels
  // are bound by arithmetic, not by load width).
  if (shape_->form == KernelForm::kGridStride) {
    while (width > 1 && width * value_ops_ > kMaxUnrolledOps) width /= 2;
  }
  while (width > 1 && (points % width != 0 || inner_extent % width != 0)) width /= 2;
  return width;
}

std::vector<std::unique_ptr<llvm_ir::ValueEmitter>> NvptxKernel::PointEmitters(
    const LoopChain& chain, const std::vector<llvm::Value*>& bases, int width,
    const std::vector<int32_t>& loads) {
  const int32_t inner = chain.loops.back()->var;
  const std::vector<int32_t>& writes = kernel_->writes;
  std::vector<std::unique_ptr<llvm_ir::ValueEmitter>> points;
  for (llvm::Value* base : bases) {
    SetChainVars(chain, base);
    for (int v = 0; v < width; ++v) {
      auto point =
          std::make_unique<llvm_ir::ValueEmitter>(b_, module_, options_, program_, *kernel_);
      point->buffers = values_->buffers;
      point->vars = values_->vars;
      point->accs = values_->accs;
      point->known = values_->known;
      point->run_counter = values_->run_counter;
      if (v > 0) {
        point->vars[inner] = b_.CreateAdd(values_->vars[inner], b_.getInt64(v), "", true, true);
      }
      for (int32_t id : loads) {
        const int32_t buffer = kernel_->exprs[id].buffer;
        if (!std::binary_search(writes.begin(), writes.end(), buffer)) point->Emit(id);
      }
      points.push_back(std::move(point));
    }
  }
  return points;
}

void NvptxKernel::VectorPoints(const LoopChain& chain, const std::vector<llvm::Value*>& bases,
                               int width, llvm::Value* last_base_valid) {
  if (bases.size() == 1 && last_base_valid == nullptr && (width == 1 || chain.loops.empty())) {
    SetChainVars(chain, bases[0]);
    EmitStmts(chain.body);
    return;
  }
  // One value emitter per point, its loads of read-only buffers emitted
  // first, together: math functions bring branches, and adjacent accesses
  // merge into vector ones only within a basic block. The bodies then reuse
  // those loads (each emitter's cache) and elementwise stores go last.
  std::vector<int32_t> loads;
  bool only_stores = true;
  for (const Stmt* s : chain.body) {
    only_stores = only_stores && s->kind == StmtKind::kStore;
    if (s->kind == StmtKind::kLoop || s->kind == StmtKind::kNullLoad) continue;
    CollectLoads(*kernel_, s->value, loads);
    CollectLoads(*kernel_, s->index, loads);
  }
  std::vector<std::unique_ptr<llvm_ir::ValueEmitter>> points =
      PointEmitters(chain, bases, width, loads);
  for (size_t k = 0; k < bases.size(); ++k) {
    PointBodies(chain, absl::MakeSpan(points).subspan(k * width, width), only_stores,
                k + 1 == bases.size() ? last_base_valid : nullptr);
  }
  values_->ClearCache();
}

void NvptxKernel::PointBodies(const LoopChain& chain,
                              absl::Span<const std::unique_ptr<llvm_ir::ValueEmitter>> points,
                              bool only_stores, llvm::Value* valid) {
  // Where `valid` may be false, updates are selected rather than branched
  // around, so the points' loads keep their place before the math.
  llvm_ir::ValueEmitter* stage_values = values_;
  std::vector<std::pair<llvm::Value*, llvm::Value*>> stores;
  for (const auto& point : points) {
    values_ = point.get();
    for (const Stmt* s : chain.body) {
      if (s->kind == StmtKind::kStore && only_stores) {
        const DType dtype = program_.buffers[s->buffer].type.dtype;
        llvm::Value* value = values_->ToStorage(values_->Emit(s->value), dtype);
        stores.push_back({value, values_->Pointer(s->buffer, values_->Emit(s->index))});
      } else if (s->kind == StmtKind::kAccUpdate) {
        const DType dtype = kernel_->accumulators[s->acc];
        llvm::Value* acc = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[s->acc]);
        llvm::Value* next = values_->Combine(s->combine, dtype, acc, values_->Emit(s->value), false);
        b_.CreateStore(valid ? b_.CreateSelect(valid, next, acc) : next, values_->accs[s->acc]);
      } else if (s->kind == StmtKind::kArgmaxUpdate && valid != nullptr) {
        const DType dtype = kernel_->accumulators[s->acc];
        llvm::Value* best = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[s->acc]);
        llvm::Value* index = b_.CreateLoad(b_.getInt64Ty(), values_->accs[s->acc + 1]);
        llvm::Value* v = values_->Emit(s->value);
        llvm::Value* take = b_.CreateAnd(valid, values_->ArgmaxTake(dtype, v, best));
        b_.CreateStore(b_.CreateSelect(take, v, best), values_->accs[s->acc]);
        b_.CreateStore(b_.CreateSelect(take, values_->Emit(s->index), index),
                       values_->accs[s->acc + 1]);
      } else if (valid != nullptr) {
        If(valid, [&] { EmitStmt(*s); });
      } else {
        EmitStmt(*s);
      }
    }
  }
  values_ = stage_values;
  auto store_all = [&] {
    for (const auto& [value, pointer] : stores) b_.CreateStore(value, pointer);
  };
  if (valid != nullptr && !stores.empty()) {
    If(valid, store_all);
  } else {
    store_all();
  }
}

}  // namespace rk::compiler::cuda
