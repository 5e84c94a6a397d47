// The tiled matmul form (nvptx_kernel.h): a 16x16 block computes a square
// output tile, P x P outputs a thread: P = 8 (a 128x128 tile) for f32
// accumulators, whose 64 sums and 16 operands fit the registers, else P = 4
// (64x64). With P = 4 a thread's rows are ty + 16r and columns tx + 16c, so
// shared-memory reads are broadcasts or consecutive; with P = 8 they are
// 4 consecutive at ty * 4 and 64 + ty * 4 (columns alike), so each four read
// as one 16-byte load. Each step stages a tile x 16 slice of the left
// operand (k-major) and a 16 x tile slice of the right one in shared memory,
// already evaluated in the accumulator type by the kernel's own operand
// expressions (layout ops and casts included); out-of-range elements read
// as zero. Two buffers: a step loads the next slices into registers, works
// on the current ones, then stores the next into the other buffer. Every output sums its products in increasing k. The output goes
// through the kernel's own store statement, so epilogue faults and casts
// stay what they were.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

namespace {
constexpr int kThreads = 16;
constexpr int kMaxPerThread = 8;

// Offset of a thread's p-th row (or column) in the tile, from its ty (tx).
int64_t PerThreadOffset(int per_thread, int p) {
  if (per_thread == 4) return int64_t{16} * p;
  return p < 4 ? p : 64 + (p - 4);  // plus 4 * ty
}
}  // namespace

void NvptxKernel::EmitMatmul(KernelLaunch& launch) {
  if (options_.tensor_cores) {
    if (std::optional<MmaPlan> plan =
            PlanMmaMatmul(program_, *kernel_, shape_->matmul, options_.tf32)) {
      if (options_.wgmma) {
        if (std::optional<WgmmaTiling> tiling = PlanWgmmaMatmul(*plan, shape_->matmul)) {
          EmitWgmmaMatmul(launch, *plan, *tiling);
          return;
        }
      }
      EmitMmaMatmul(launch, *plan);
      return;
    }
  }
  Annotate(module_, fn_, "maxntidx", kThreads);
  Annotate(module_, fn_, "maxntidy", kThreads);
  const MatmulPattern mm = shape_->matmul;
  const int per = mm.acc_dtype == DType::kF32 ? 8 : 4;
  const int tile = kThreads * per;
  const int padded = per == 4 ? tile + 1 : tile + 4;  // breaks bank conflicts of the A stores
  launch.block = {kThreads, kThreads, 1};
  launch.grid = {static_cast<uint32_t>((mm.n + tile - 1) / tile),
                 static_cast<uint32_t>((mm.m + tile - 1) / tile),
                 static_cast<uint32_t>(std::max<int64_t>(mm.batch, 1))};
  llvm::Type* t = values_->ComputeType(mm.acc_dtype);

  // The store reads the accumulator row at out_j: make it read an
  // accumulator that holds the current output's sum.
  const int32_t out_acc = static_cast<int32_t>(kernel_->accumulators.size());
  kernel_->accumulators.push_back(mm.acc_dtype);
  kernel_->exprs[mm.row_load].kind = kernel::ExprKind::kAccRead;
  kernel_->exprs[mm.row_load].acc = out_acc;
  values_->accs.push_back(b_.CreateAlloca(t));
  llvm::Value* sums[kMaxPerThread][kMaxPerThread];
  for (int r = 0; r < per; ++r) {
    for (int c = 0; c < per; ++c) {
      sums[r][c] = b_.CreateAlloca(t);
      b_.CreateStore(llvm::Constant::getNullValue(t), sums[r][c]);
    }
  }
  if (mm.batch == 0 || mm.m == 0 || mm.n == 0) return;

  llvm::Value* tx = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* ty = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y);
  llvm::Value* row0 = b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y),
                                   b_.getInt64(tile));
  llvm::Value* col0 = b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                   b_.getInt64(tile));
  // The thread's first row and column: ty and tx, or 4 ty and 4 tx.
  llvm::Value* ty0 = per == 4 ? ty : b_.CreateMul(ty, b_.getInt64(4));
  llvm::Value* tx0 = per == 4 ? tx : b_.CreateMul(tx, b_.getInt64(4));
  llvm::Value* linear = b_.CreateAdd(b_.CreateMul(ty, b_.getInt64(kThreads)), tx);
  LoopChain batch;
  batch.loops = mm.batch_loops;
  batch.points = mm.batch;
  llvm::Value* batch_index = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z);
  SetChainVars(batch, batch_index);
  std::vector<llvm::Value*> batch_vars;
  for (const kernel::Stmt* l : mm.batch_loops) batch_vars.push_back(values_->vars[l->var]);
  auto restore_batch = [&] {
    for (size_t i = 0; i < batch_vars.size(); ++i) values_->vars[mm.batch_loops[i]->var] = batch_vars[i];
  };

  const int64_t a_size = kMatmulTileK * padded, b_size = kMatmulTileK * tile;  // a buffer's
  auto* a_type = llvm::ArrayType::get(t, 2 * a_size);
  auto* b_type = llvm::ArrayType::get(t, 2 * b_size);
  llvm::Value* a_tile = SharedArray(t, 2 * a_size, "a_tile");
  llvm::Value* b_tile = SharedArray(t, 2 * b_size, "b_tile");
  auto at = [&](llvm::Type* type, llvm::Value* base, llvm::Value* index) {
    return b_.CreateInBoundsGEP(type, base, {b_.getInt64(0), index});
  };
  auto clamp = [&](llvm::Value* v, int64_t extent) {
    return b_.CreateSelect(b_.CreateICmpULT(v, b_.getInt64(extent)), v, b_.getInt64(extent - 1));
  };
  llvm::Value* zero = llvm::Constant::getNullValue(t);
  auto multiply_add = [&](llvm::Value* x, llvm::Value* y, llvm::Value* sum) -> llvm::Value* {
    if (t->isFloatingPointTy()) {
      llvm::Function* fma = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::fmuladd, {t});
      return b_.CreateCall(fma, {x, y, sum});
    }
    if (t->isIntegerTy(1)) return b_.CreateOr(sum, b_.CreateAnd(x, y));
    return b_.CreateAdd(sum, b_.CreateMul(x, y));
  };
  const int loads = tile * kMatmulTileK / (kThreads * kThreads);  // 4 or 8

  // The operand values of the slice at k0, a thread's share (left, right
  // alternating), and their shared-memory stores into buffer `buf`.
  auto stage_values = [&](llvm::Value* k0) {
    std::vector<llvm::Value*> v;
    for (int q = 0; q < loads; ++q) {
      llvm::Value* e = b_.CreateAdd(linear, b_.getInt64(q * kThreads * kThreads));
      // Left slice: tile rows x 16 k, k fastest; stored k-major.
      llvm::Value* i = b_.CreateAdd(row0, b_.CreateLShr(e, 4));
      llvm::Value* k = b_.CreateAdd(k0, b_.CreateAnd(e, 15));
      values_->ClearCache();
      restore_batch();
      if (mm.i_var >= 0) values_->vars[mm.i_var] = clamp(i, mm.m);
      values_->vars[mm.k_var] = clamp(k, mm.k);
      llvm::Value* in_a = b_.CreateAnd(b_.CreateICmpULT(i, b_.getInt64(mm.m)),
                                       b_.CreateICmpULT(k, b_.getInt64(mm.k)));
      v.push_back(b_.CreateSelect(in_a, values_->Emit(mm.lhs), zero));
      // Right slice: 16 k x tile columns, columns fastest.
      llvm::Value* j = b_.CreateAdd(col0, b_.CreateURem(e, b_.getInt64(tile)));
      llvm::Value* k2 = b_.CreateAdd(k0, b_.CreateUDiv(e, b_.getInt64(tile)));
      values_->ClearCache();
      restore_batch();
      values_->vars[mm.k_var] = clamp(k2, mm.k);
      values_->vars[mm.j_var] = clamp(j, mm.n);
      llvm::Value* in_b = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm.n)),
                                       b_.CreateICmpULT(k2, b_.getInt64(mm.k)));
      v.push_back(b_.CreateSelect(in_b, values_->Emit(mm.rhs), zero));
    }
    values_->ClearCache();
    return v;
  };
  auto store_values = [&](const std::vector<llvm::Value*>& v, llvm::Value* buf) {
    for (int q = 0; q < loads; ++q) {
      llvm::Value* e = b_.CreateAdd(linear, b_.getInt64(q * kThreads * kThreads));
      llvm::Value* a_index = b_.CreateAdd(b_.CreateMul(b_.CreateAnd(e, 15), b_.getInt64(padded)),
                                          b_.CreateLShr(e, 4));
      b_.CreateStore(v[2 * q], at(a_type, a_tile, b_.CreateAdd(b_.CreateMul(buf, b_.getInt64(a_size)), a_index)));
      llvm::Value* b_index = b_.CreateAdd(
          b_.CreateMul(b_.CreateUDiv(e, b_.getInt64(tile)), b_.getInt64(tile)),
          b_.CreateURem(e, b_.getInt64(tile)));
      b_.CreateStore(v[2 * q + 1],
                     at(b_type, b_tile, b_.CreateAdd(b_.CreateMul(buf, b_.getInt64(b_size)), b_index)));
    }
  };

  // Two buffers: the next slice is loaded into registers before the
  // current one is multiplied, and stored into the other buffer after; one
  // barrier a step.
  if (mm.k > 0) {
    store_values(stage_values(b_.getInt64(0)), b_.getInt64(0));
    Barrier();
  }
  ForLoop(b_.getInt64(0), b_.getInt64(mm.k), b_.getInt64(kMatmulTileK), [&](llvm::Value* k0) {
    llvm::Value* buf = b_.CreateAnd(b_.CreateUDiv(k0, b_.getInt64(kMatmulTileK)), 1);
    const std::vector<llvm::Value*> next = stage_values(b_.CreateAdd(k0, b_.getInt64(kMatmulTileK)));
    llvm::Value* a_base = b_.CreateMul(buf, b_.getInt64(a_size));
    llvm::Value* b_base = b_.CreateMul(buf, b_.getInt64(b_size));
    llvm::Value* acc[kMaxPerThread][kMaxPerThread];
    for (int r = 0; r < per; ++r) {
      for (int c = 0; c < per; ++c) acc[r][c] = b_.CreateLoad(t, sums[r][c]);
    }
    for (int kk = 0; kk < kMatmulTileK; ++kk) {
      llvm::Value* a[kMaxPerThread];
      llvm::Value* bv[kMaxPerThread];
      for (int r = 0; r < per; ++r) {
        llvm::Value* index =
            b_.CreateAdd(ty0, b_.getInt64(kk * padded + PerThreadOffset(per, r)));
        a[r] = b_.CreateLoad(t, at(a_type, a_tile, b_.CreateAdd(a_base, index)));
      }
      for (int c = 0; c < per; ++c) {
        llvm::Value* index = b_.CreateAdd(tx0, b_.getInt64(kk * tile + PerThreadOffset(per, c)));
        bv[c] = b_.CreateLoad(t, at(b_type, b_tile, b_.CreateAdd(b_base, index)));
      }
      for (int r = 0; r < per; ++r) {
        for (int c = 0; c < per; ++c) acc[r][c] = multiply_add(a[r], bv[c], acc[r][c]);
      }
    }
    for (int r = 0; r < per; ++r) {
      for (int c = 0; c < per; ++c) b_.CreateStore(acc[r][c], sums[r][c]);
    }
    store_values(next, b_.CreateXor(buf, 1));
    Barrier();
  });

  for (int r = 0; r < per; ++r) {
    for (int c = 0; c < per; ++c) {
      llvm::Value* i = b_.CreateAdd(row0, b_.CreateAdd(ty0, b_.getInt64(PerThreadOffset(per, r))));
      llvm::Value* j = b_.CreateAdd(col0, b_.CreateAdd(tx0, b_.getInt64(PerThreadOffset(per, c))));
      llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(i, b_.getInt64(mm.m)),
                                         b_.CreateICmpULT(j, b_.getInt64(mm.n)));
      If(inside, [&] {
        b_.CreateStore(b_.CreateLoad(t, sums[r][c]), values_->accs[out_acc]);
        restore_batch();
        if (mm.i_var >= 0) values_->vars[mm.i_var] = i;
        values_->vars[mm.out_j_var] = j;
        EmitStmt(*mm.store);
      });
    }
  }
}

}  // namespace rk::compiler::cuda
