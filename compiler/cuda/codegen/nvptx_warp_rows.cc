// Short rows on the GPU (warp_rows.h): the block's warps each take their own
// rows; lanes split a row's points, combine with warp shuffles, and a row
// group's stages run back to back with no barrier, passing per-row results
// in registers.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc and, on a GPU,
// compiler/tests/cuda_program_test.cc.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/warp_rows.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

using kernel::Stmt;
using kernel::StmtKind;

namespace {

constexpr int kWarpSize = 32;

}  // namespace

void NvptxKernel::WarpStridedChain(const LoopChain& chain, llvm::Value* lane, WarpLoads loads) {
  if (chain.points <= 0) return;
  const int64_t inner = chain.loops.empty() ? 1 : chain.loops.back()->extent;
  const int width = VectorWidth(chain.points, inner);
  const int64_t vectors = chain.points / width;
  const int64_t per_lane = (vectors + kWarpSize - 1) / kWarpSize;
  if (chain.loops.empty() || per_lane * width > kMaxWarpRowPoints) {
    StridedChain(chain, lane, b_.getInt64(kWarpSize));
    return;
  }
  std::vector<llvm::Value*> bases;
  llvm::Value* last_valid = nullptr;
  llvm::Value* last_unclamped = nullptr;
  for (int64_t j = 0; j < per_lane; ++j) {
    llvm::Value* vector = b_.CreateAdd(lane, b_.getInt64(j * kWarpSize), "", true, true);
    if ((j + 1) * kWarpSize > vectors) {
      last_valid = b_.CreateICmpULT(vector, b_.getInt64(vectors));
      last_unclamped = b_.CreateMul(vector, b_.getInt64(width), "", true, true);
      vector = b_.CreateSelect(last_valid, vector, b_.getInt64(vectors - 1));
    }
    bases.push_back(b_.CreateMul(vector, b_.getInt64(width), "", true, true));
  }
  if (loads == WarpLoads::kAllFirst) {
    VectorPoints(chain, bases, width, last_valid);
    return;
  }
  // One vector at a time; a lane's vector past the row's end is skipped
  // whole, its loads inside the branch too (together, from one base).
  for (size_t k = 0; k < bases.size(); ++k) {
    if (k + 1 == bases.size() && last_valid != nullptr) {
      If(last_valid, [&] { VectorPoints(chain, last_unclamped, width); });
    } else {
      VectorPoints(chain, bases[k], width);
    }
  }
}

void NvptxKernel::WarpCombine(const Stmt& update) {
  const DType dtype = kernel_->accumulators[update.acc];
  const bool argmax = update.kind == StmtKind::kArgmaxUpdate;
  values_->ClearCache();
  llvm::Value* v = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[update.acc]);
  llvm::Value* idx = argmax ? b_.CreateLoad(b_.getInt64Ty(), values_->accs[update.acc + 1]) : nullptr;
  WarpButterfly(update, v, idx);
  // Partners combine the same two values in opposite order. That is exact
  // for sums (addition commutes) and argmax (ties go to the lower index),
  // but a float max or min of +0 and -0 (or of two NaNs) may keep either:
  // lane 0's result, the one it stores, becomes every lane's.
  if (!argmax && IsFloat(dtype) && update.combine != Op::kAdd) v = ShuffleIdx(v, 0);
  b_.CreateStore(v, values_->accs[update.acc]);
  if (argmax) b_.CreateStore(idx, values_->accs[update.acc + 1]);
  values_->ClearCache();
}

// The epilogue's loops are split over the lanes; its per-row stores are
// computed on every lane (all hold the combined accumulators), written by
// lane 0 and kept for later stages, which read them from registers instead
// of memory (row_group.h guarantees a later stage reads such a buffer only
// at the element stored for the same row, and nothing rewrites it).
void NvptxKernel::WarpRowStage(llvm::Value* lane,
                               std::vector<std::pair<int32_t, llvm::Value*>>& row_values) {
  const RowReduction& row = shape_->row;
  values_->known.clear();
  for (size_t id = 0; id < kernel_->exprs.size(); ++id) {
    const kernel::Expr& e = kernel_->exprs[id];
    if (e.kind != kernel::ExprKind::kLoad) continue;
    for (const auto& [buffer, value] : row_values) {
      if (buffer == e.buffer) values_->known[static_cast<int32_t>(id)] = value;
    }
  }
  EmitStmts(row.inits);
  // The row streams in here, every load of it issued before any math; later
  // stages find the same loads (same addresses, read-only buffers) and reuse
  // the registers.
  WarpStridedChain(row.reduce, lane, WarpLoads::kAllFirst);
  WarpCombine(*row.reduce.body[0]);
  llvm::Value* lane0 = b_.CreateICmpEQ(lane, b_.getInt64(0));
  for (const Stmt* st : row.rest) {
    if (st->kind == StmtKind::kLoop) {
      // What the epilogue loads besides the row (a layer_norm's weight and
      // bias) is shared by all rows and mostly cached: loading it one vector
      // at a time keeps registers, and so resident warps, for the row.
      WarpStridedChain(PeelChain({st}), lane, WarpLoads::kByVector);
    } else if (st->kind == StmtKind::kStore) {
      values_->ClearCache();
      const DType dtype = program_.buffers[st->buffer].type.dtype;
      llvm::Value* value = values_->ToStorage(values_->Emit(st->value), dtype);
      llvm::Value* pointer = values_->Pointer(st->buffer, values_->Emit(st->index));
      row_values.push_back({st->buffer, values_->FromStorage(value, dtype)});
      If(lane0, [&] { b_.CreateStore(value, pointer); });
    } else {
      If(lane0, [&] { EmitStmt(*st); });
    }
  }
  values_->known.clear();
}

void NvptxKernel::EmitWarpRows(KernelLaunch& launch, int warps) {
  threads_ = warps * kWarpSize;
  const int64_t rows = std::max<int64_t>(shape_->phases[0].points, 0);
  const int64_t blocks = std::clamp<int64_t>((rows + warps - 1) / warps, 1,
                                             std::numeric_limits<int32_t>::max());
  launch.block = {static_cast<uint32_t>(threads_), 1, 1};
  launch.grid = {static_cast<uint32_t>(blocks), 1, 1};
  launch.rows_per_block = warps;
  Annotate(module_, fn_, "maxntidx", threads_);
  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* lane = b_.CreateAnd(tid, b_.getInt64(kWarpSize - 1));
  llvm::Value* warp = b_.CreateLShr(tid, 5);
  llvm::Value* first_row = b_.CreateAdd(
      b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b_.getInt64(warps)), warp);
  llvm::Value* row_step =
      b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), b_.getInt64(warps));
  // A warp's lanes run the same rows, so every shuffle has all 32 lanes.
  ForLoop(first_row, b_.getInt64(rows), row_step, [&](llvm::Value* r) {
    std::vector<std::pair<int32_t, llvm::Value*>> row_values;
    for (size_t s = 0; s < stages_.size(); ++s) {
      UseStage(s);
      SetChainVars(shape_->phases[0], r);
      WarpRowStage(lane, row_values);
    }
    UseStage(0);
  });
}

}  // namespace rk::compiler::cuda
