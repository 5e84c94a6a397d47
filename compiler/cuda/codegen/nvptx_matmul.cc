// The tiled matmul form (nvptx_kernel.h): a 16x16 block computes a 64x64
// output tile, 4x4 outputs a thread (rows ty + 16r, columns tx + 16c, so
// shared-memory reads are broadcasts or consecutive and stores coalesce).
// Each step stages a 64x16 slice of the left operand and a 16x64 slice of the
// right one in shared memory, already evaluated in the accumulator type by
// the kernel's own operand expressions (layout ops and casts included);
// out-of-range elements read as zero. The output goes through the kernel's
// own store statement, so epilogue faults and casts stay what they were.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

namespace {
constexpr int kThreads = 16;
constexpr int kPerThread = kMatmulTile / kThreads;  // 4
constexpr int kPadded = kMatmulTile + 1;            // breaks bank conflicts of the A stores
}  // namespace

void NvptxKernel::EmitMatmul(KernelLaunch& launch) {
  if (options_.tensor_cores) {
    if (std::optional<MmaPlan> plan = PlanMmaMatmul(program_, *kernel_, shape_->matmul)) {
      EmitMmaMatmul(launch, *plan);
      return;
    }
  }
  Annotate(module_, fn_, "maxntidx", kThreads);
  Annotate(module_, fn_, "maxntidy", kThreads);
  const MatmulPattern mm = shape_->matmul;
  launch.block = {kThreads, kThreads, 1};
  launch.grid = {static_cast<uint32_t>((mm.n + kMatmulTile - 1) / kMatmulTile),
                 static_cast<uint32_t>((mm.m + kMatmulTile - 1) / kMatmulTile),
                 static_cast<uint32_t>(std::max<int64_t>(mm.batch, 1))};
  llvm::Type* t = values_->ComputeType(mm.acc_dtype);

  // The store reads the accumulator row at out_j: make it read an
  // accumulator that holds the current output's sum.
  const int32_t out_acc = static_cast<int32_t>(kernel_->accumulators.size());
  kernel_->accumulators.push_back(mm.acc_dtype);
  kernel_->exprs[mm.row_load].kind = kernel::ExprKind::kAccRead;
  kernel_->exprs[mm.row_load].acc = out_acc;
  values_->accs.push_back(b_.CreateAlloca(t));
  llvm::Value* sums[kPerThread][kPerThread];
  for (auto& row : sums) {
    for (llvm::Value*& s : row) {
      s = b_.CreateAlloca(t);
      b_.CreateStore(llvm::Constant::getNullValue(t), s);
    }
  }
  if (mm.batch == 0 || mm.m == 0 || mm.n == 0) return;

  llvm::Value* tx = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* ty = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y);
  llvm::Value* row0 = b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y),
                                   b_.getInt64(kMatmulTile));
  llvm::Value* col0 = b_.CreateMul(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                   b_.getInt64(kMatmulTile));
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

  auto* a_type = llvm::ArrayType::get(t, kMatmulTileK * kPadded);
  auto* b_type = llvm::ArrayType::get(t, kMatmulTileK * kMatmulTile);
  llvm::Value* a_tile = SharedArray(t, kMatmulTileK * kPadded, "a_tile");
  llvm::Value* b_tile = SharedArray(t, kMatmulTileK * kMatmulTile, "b_tile");
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
  constexpr int kLoads = kMatmulTile * kMatmulTileK / (kThreads * kThreads);  // 4

  ForLoop(b_.getInt64(0), b_.getInt64(mm.k), b_.getInt64(kMatmulTileK), [&](llvm::Value* k0) {
    for (int q = 0; q < kLoads; ++q) {
      llvm::Value* e = b_.CreateAdd(linear, b_.getInt64(q * kThreads * kThreads));
      // Left slice: 64 rows x 16 k, k fastest; stored k-major.
      llvm::Value* r = b_.CreateLShr(e, 4);
      llvm::Value* kk = b_.CreateAnd(e, 15);
      llvm::Value* i = b_.CreateAdd(row0, r);
      llvm::Value* k = b_.CreateAdd(k0, kk);
      values_->ClearCache();
      restore_batch();
      if (mm.i_var >= 0) values_->vars[mm.i_var] = clamp(i, mm.m);
      values_->vars[mm.k_var] = clamp(k, mm.k);
      llvm::Value* in_a = b_.CreateAnd(b_.CreateICmpULT(i, b_.getInt64(mm.m)),
                                       b_.CreateICmpULT(k, b_.getInt64(mm.k)));
      llvm::Value* a = b_.CreateSelect(in_a, values_->Emit(mm.lhs), zero);
      b_.CreateStore(a, at(a_type, a_tile, b_.CreateAdd(b_.CreateMul(kk, b_.getInt64(kPadded)), r)));
      // Right slice: 16 k x 64 columns, columns fastest.
      llvm::Value* kb = b_.CreateLShr(e, 6);
      llvm::Value* c = b_.CreateAnd(e, 63);
      llvm::Value* j = b_.CreateAdd(col0, c);
      llvm::Value* k2 = b_.CreateAdd(k0, kb);
      values_->ClearCache();
      restore_batch();
      values_->vars[mm.k_var] = clamp(k2, mm.k);
      values_->vars[mm.j_var] = clamp(j, mm.n);
      llvm::Value* in_b = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm.n)),
                                       b_.CreateICmpULT(k2, b_.getInt64(mm.k)));
      llvm::Value* bv = b_.CreateSelect(in_b, values_->Emit(mm.rhs), zero);
      b_.CreateStore(bv, at(b_type, b_tile, b_.CreateAdd(b_.CreateMul(kb, b_.getInt64(kMatmulTile)), c)));
    }
    values_->ClearCache();
    Barrier();
    llvm::Value* acc[kPerThread][kPerThread];
    for (int r = 0; r < kPerThread; ++r) {
      for (int c = 0; c < kPerThread; ++c) acc[r][c] = b_.CreateLoad(t, sums[r][c]);
    }
    for (int kk = 0; kk < kMatmulTileK; ++kk) {
      llvm::Value* a[kPerThread];
      llvm::Value* bv[kPerThread];
      for (int r = 0; r < kPerThread; ++r) {
        llvm::Value* index = b_.CreateAdd(ty, b_.getInt64(kk * kPadded + r * kThreads));
        a[r] = b_.CreateLoad(t, at(a_type, a_tile, index));
      }
      for (int c = 0; c < kPerThread; ++c) {
        llvm::Value* index = b_.CreateAdd(tx, b_.getInt64(kk * kMatmulTile + c * kThreads));
        bv[c] = b_.CreateLoad(t, at(b_type, b_tile, index));
      }
      for (int r = 0; r < kPerThread; ++r) {
        for (int c = 0; c < kPerThread; ++c) acc[r][c] = multiply_add(a[r], bv[c], acc[r][c]);
      }
    }
    for (int r = 0; r < kPerThread; ++r) {
      for (int c = 0; c < kPerThread; ++c) b_.CreateStore(acc[r][c], sums[r][c]);
    }
    Barrier();
  });

  for (int r = 0; r < kPerThread; ++r) {
    for (int c = 0; c < kPerThread; ++c) {
      llvm::Value* i = b_.CreateAdd(row0, b_.CreateAdd(ty, b_.getInt64(r * kThreads)));
      llvm::Value* j = b_.CreateAdd(col0, b_.CreateAdd(tx, b_.getInt64(c * kThreads)));
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
