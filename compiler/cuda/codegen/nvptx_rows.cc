// Row reductions and row groups on the GPU (see kernel_shape.h, row_group.h
// and nvptx_kernel.h): a block per row, block-strided points, warp-shuffle and
// shared-memory combines, stages separated by barriers. Short rows go to
// nvptx_warp_rows.cc instead (warp_rows.h).
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc and, on a GPU,
// compiler/tests/cuda_program_test.cc.
#include <algorithm>

#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/warp_rows.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

using kernel::Stmt;
using kernel::StmtKind;

void NvptxKernel::BlockStridedChain(const LoopChain& chain) {
  if (chain.points <= 0) return;
  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  const int64_t inner = chain.loops.empty() ? 1 : chain.loops.back()->extent;
  for (int width = VectorWidth(chain.points, inner); width >= 1; width /= 2) {
    const int64_t slots = int64_t{threads_} * width;
    if (chain.points % slots != 0 || chain.points / threads_ > kMaxUnrolledPoints) continue;
    for (int64_t j = 0; j < chain.points / slots; ++j) {
      llvm::Value* slot = b_.CreateAdd(tid, b_.getInt64(j * threads_), "", true, true);
      VectorPoints(chain, b_.CreateMul(slot, b_.getInt64(width), "", true, true), width);
    }
    return;
  }
  StridedChain(chain, tid, b_.getInt64(threads_));
}

llvm::Value* NvptxKernel::ShuffleXor(llvm::Value* v, int lane_mask) {
  return Shuffle(v, lane_mask, llvm::Intrinsic::nvvm_shfl_sync_bfly_i32,
                 llvm::Intrinsic::nvvm_shfl_sync_bfly_f32);
}

llvm::Value* NvptxKernel::ShuffleIdx(llvm::Value* v, int lane) {
  return Shuffle(v, lane, llvm::Intrinsic::nvvm_shfl_sync_idx_i32,
                 llvm::Intrinsic::nvvm_shfl_sync_idx_f32);
}

llvm::Value* NvptxKernel::Shuffle(llvm::Value* v, int lane_arg, unsigned i32_intrinsic,
                                  unsigned f32_intrinsic) {
  llvm::Type* t = v->getType();
  llvm::Value* mask = b_.getInt32(0xffffffffu);
  llvm::Value* lanes = b_.getInt32(lane_arg);
  llvm::Value* clamp = b_.getInt32(31);
  auto shfl_i32 = [&](llvm::Value* x) {
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, i32_intrinsic),
                         {mask, x, lanes, clamp});
  };
  if (t->isFloatTy()) {
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, f32_intrinsic),
                         {mask, v, lanes, clamp});
  }
  if (t->isIntegerTy(32)) return shfl_i32(v);
  if (t->isIntegerTy(1)) return b_.CreateTrunc(shfl_i32(b_.CreateZExt(v, b_.getInt32Ty())), t);
  // 64-bit values travel as two halves.
  llvm::Value* bits = t->isIntegerTy(64) ? v : b_.CreateBitCast(v, b_.getInt64Ty());
  llvm::Value* lo = shfl_i32(b_.CreateTrunc(bits, b_.getInt32Ty()));
  llvm::Value* hi = shfl_i32(b_.CreateTrunc(b_.CreateLShr(bits, 32), b_.getInt32Ty()));
  llvm::Value* joined = b_.CreateOr(b_.CreateZExt(lo, b_.getInt64Ty()),
                                    b_.CreateShl(b_.CreateZExt(hi, b_.getInt64Ty()), 32));
  return t->isIntegerTy(64) ? joined : b_.CreateBitCast(joined, t);
}

llvm::Value* NvptxKernel::CombineArgmax(DType dtype, llvm::Value* value, llvm::Value* index,
                                        llvm::Value* other_value, llvm::Value* other_index,
                                        llvm::Value** out_index) {
  // The sequential scan keeps the first maximum (NaN counts as largest): the
  // other partial wins if strictly better, or equally good at a lower index.
  llvm::Value* better = values_->ArgmaxTake(dtype, other_value, value);
  llvm::Value* worse = values_->ArgmaxTake(dtype, value, other_value);
  llvm::Value* tie_lower = b_.CreateAnd(b_.CreateNot(worse), b_.CreateICmpSLT(other_index, index));
  llvm::Value* take = b_.CreateOr(better, tie_lower);
  *out_index = b_.CreateSelect(take, other_index, index);
  return b_.CreateSelect(take, other_value, value);
}

void NvptxKernel::WarpButterfly(const Stmt& update, llvm::Value*& v, llvm::Value*& idx) {
  const DType dtype = kernel_->accumulators[update.acc];
  for (int lane_mask = 16; lane_mask >= 1; lane_mask /= 2) {
    llvm::Value* ov = ShuffleXor(v, lane_mask);
    if (update.kind == StmtKind::kArgmaxUpdate) {
      v = CombineArgmax(dtype, v, idx, ov, ShuffleXor(idx, lane_mask), &idx);
    } else {
      v = values_->Combine(update.combine, dtype, v, ov, false);
    }
  }
}

void NvptxKernel::BlockCombine(const Stmt& update) {
  const int warps = threads_ / 32;
  const DType dtype = kernel_->accumulators[update.acc];
  const bool argmax = update.kind == StmtKind::kArgmaxUpdate;
  llvm::Type* t = values_->ComputeType(dtype);
  values_->ClearCache();
  llvm::Value* v = b_.CreateLoad(t, values_->accs[update.acc]);
  llvm::Value* idx = argmax ? b_.CreateLoad(b_.getInt64Ty(), values_->accs[update.acc + 1]) : nullptr;
  auto combine = [&](llvm::Value* ov, llvm::Value* oi) {
    if (argmax) {
      v = CombineArgmax(dtype, v, idx, ov, oi, &idx);
    } else {
      v = values_->Combine(update.combine, dtype, v, ov, false);
    }
  };
  WarpButterfly(update, v, idx);
  if (warps > 1) {
    llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    llvm::Value* shared_v = SharedArray(t, warps, "partials");
    llvm::Value* shared_i = argmax ? SharedArray(b_.getInt64Ty(), warps, "indices") : nullptr;
    auto* vt = llvm::ArrayType::get(t, warps);
    auto* it = llvm::ArrayType::get(b_.getInt64Ty(), warps);
    llvm::Value* warp = b_.CreateLShr(tid, 5);
    llvm::Value* lane0 = b_.CreateICmpEQ(b_.CreateAnd(tid, 31), b_.getInt64(0));
    llvm::Value* v_now = v;
    llvm::Value* i_now = idx;
    If(lane0, [&] {
      b_.CreateStore(v_now, b_.CreateInBoundsGEP(vt, shared_v, {b_.getInt64(0), warp}));
      if (argmax) b_.CreateStore(i_now, b_.CreateInBoundsGEP(it, shared_i, {b_.getInt64(0), warp}));
    });
    Barrier();
    auto load_v = [&](int w) {
      return b_.CreateLoad(t, b_.CreateInBoundsGEP(vt, shared_v, {b_.getInt64(0), b_.getInt64(w)}));
    };
    auto load_i = [&](int w) {
      return b_.CreateLoad(b_.getInt64Ty(),
                           b_.CreateInBoundsGEP(it, shared_i, {b_.getInt64(0), b_.getInt64(w)}));
    };
    v = load_v(0);
    idx = argmax ? load_i(0) : nullptr;
    for (int w = 1; w < warps; ++w) combine(load_v(w), argmax ? load_i(w) : nullptr);
    Barrier();
  }
  b_.CreateStore(v, values_->accs[update.acc]);
  if (argmax) b_.CreateStore(idx, values_->accs[update.acc + 1]);
  values_->ClearCache();
}

// Threads per block for a row group: at most the stages' largest row
// reduction wants, and where the first stage's reduction can run as
// constant, vector-wide points (see nvptx_kernel.h), the largest multiple of
// 32 (>= 64, <= 256) that makes that exact: several 16-byte loads a thread
// and several blocks an SM keep memory busy through the barriers.
int NvptxKernel::RowGroupThreads() const {
  int threads = 64;
  for (const auto& stage : stages_) {
    threads = std::max(threads, RowReductionThreads(stage->shape.row.reduce.points));
  }
  const LoopChain& reduce = stages_[0]->shape.row.reduce;
  const int64_t inner = reduce.loops.empty() ? 1 : reduce.loops.back()->extent;
  const int width = VectorWidth(reduce.points, inner);
  const int64_t slots = reduce.points / width;
  for (int64_t t = std::min<int64_t>({threads, 256, slots}) / 32 * 32; t >= 64; t -= 32) {
    if (slots % t == 0 && slots / t * width <= kMaxUnrolledPoints) return static_cast<int>(t);
  }
  return threads;
}

void NvptxKernel::EmitRowReduction(KernelLaunch& launch) {
  std::vector<const KernelShape*> shapes;
  for (const auto& stage : stages_) shapes.push_back(&stage->shape);
  if (const int warps = WarpRowsPerBlock(shapes, max_elem_bytes_); warps > 0) {
    EmitWarpRows(launch, warps);
    return;
  }
  threads_ = RowGroupThreads();
  launch.block = {static_cast<uint32_t>(threads_), 1, 1};
  Annotate(module_, fn_, "maxntidx", threads_);
  const LoopChain& rows = shape_->phases[0];
  llvm::Value* first_row = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* row_step = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  ForLoop(first_row, b_.getInt64(std::max<int64_t>(rows.points, 0)), row_step, [&](llvm::Value* r) {
    for (size_t s = 0; s < stages_.size(); ++s) {
      UseStage(s);
      // What earlier stages stored for this row is visible to the block.
      if (s > 0) Barrier();
      const RowReduction& row = shape_->row;
      SetChainVars(shape_->phases[0], r);
      EmitStmts(row.inits);
      BlockStridedChain(row.reduce);
      BlockCombine(*row.reduce.body[0]);
      for (const Stmt* st : row.rest) {
        if (st->kind == StmtKind::kLoop) {
          BlockStridedChain(PeelChain({st}));
        } else {
          llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
          If(b_.CreateICmpEQ(tid, b_.getInt64(0)), [&] { EmitStmt(*st); });
        }
      }
    }
    UseStage(0);
  });
}

}  // namespace rk::compiler::cuda
