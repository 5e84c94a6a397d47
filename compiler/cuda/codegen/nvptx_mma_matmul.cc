// The tensor-core matmul form (nvptx_kernel.h, planning/mma_matmul.h): a
// block of 4 warps computes a 128x128 output tile, each warp 64x64 of it as
// 4x8 `mma.sync.m16n8k16` tiles with f32 accumulators in registers.
// Operand tiles of 32 k go global -> shared with `cp.async` (16 bytes a
// copy, zero-filled outside the matrix) through a ring of 3 stages, so two
// tiles are in flight while the warps work on the third; fragments come out
// of shared memory with `ldmatrix` (`.trans` for a right operand stored
// with its columns contiguous). Shared rows are XOR-swizzled by 16-byte
// chunk, so neither the copies nor the ldmatrix reads conflict on banks.
// Blocks walk the output in groups of 8 tile rows, so the tiles running at
// once share their operand panels in L2. Each output goes through the
// kernel's own store statement (casts, fused epilogues, faults), exactly as
// in the SIMT form, with the f32 sum widened to the kernel's accumulator.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/mma_matmul.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

namespace {
constexpr int kTileK = 32;
constexpr int kGroupRows = 8;  // tile rows a group of blocks walks
constexpr int kMaxFrags = 8;   // m16 or n8 tiles a warp, at most

// The block's output tile and how its warps split it. Measured on an H200,
// bf16 4096^3 (docs/BENCHMARKS.md): 4 warps of 64x64 in 3 stages 392
// TFLOP/s; 8 warps of 64x32 349; 128x256 or 256x128 in 2 stages 324 / 308;
// 64x128 in 4 stages 346.
struct MmaTiling {
  int tile_m = 128, tile_n = 128;
  int warps_m = 2, warps_n = 2;
  int stages = 3;  // 48 KiB of shared memory, the most a block has without opting in
  int threads() const { return 32 * warps_m * warps_n; }
  int warp_m() const { return tile_m / warps_m; }
  int warp_n() const { return tile_n / warps_n; }
  int a_bytes() const { return tile_m * kTileK * 2; }
  int b_bytes() const { return tile_n * kTileK * 2; }
  int stage_bytes() const { return a_bytes() + b_bytes(); }
};
}  // namespace

void NvptxKernel::EmitMmaMatmul(KernelLaunch& launch, const MmaPlan& plan) {
  const MatmulPattern mm = shape_->matmul;
  const MmaTiling tiling;
  const int kTileM = tiling.tile_m, kTileN = tiling.tile_n, kStages = tiling.stages;
  const int kThreads = tiling.threads(), kWarpM = tiling.warp_m(), kWarpN = tiling.warp_n();
  const int kFragsM = kWarpM / 16, kFragsN = kWarpN / 8;
  const int kStageBytes = tiling.stage_bytes(), kABytes = tiling.a_bytes();
  const int64_t tiles_m = (mm.m + kTileM - 1) / kTileM;
  const int64_t tiles_n = (mm.n + kTileN - 1) / kTileN;
  launch.block = {kThreads, 1, 1};
  launch.grid = {static_cast<uint32_t>(tiles_m * tiles_n), 1,
                 static_cast<uint32_t>(std::max<int64_t>(mm.batch, 1))};
  Annotate(module_, fn_, "maxntidx", kThreads);
  llvm::Type* f32 = b_.getFloatTy();

  const int32_t out_acc = static_cast<int32_t>(kernel_->accumulators.size());
  kernel_->accumulators.push_back(mm.acc_dtype);
  kernel_->exprs[mm.row_load].kind = kernel::ExprKind::kAccRead;
  kernel_->exprs[mm.row_load].acc = out_acc;
  llvm::Type* acc_type = values_->ComputeType(mm.acc_dtype);
  values_->accs.push_back(b_.CreateAlloca(acc_type));
  llvm::Value* sums[kMaxFrags][kMaxFrags][4];
  for (int mi = 0; mi < kFragsM; ++mi) {
    for (int ni = 0; ni < kFragsN; ++ni) {
      for (llvm::Value*& s : sums[mi][ni]) {
        s = b_.CreateAlloca(f32);
        b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), s);
      }
    }
  }
  if (mm.batch == 0 || mm.m == 0 || mm.n == 0) return;
  const int b_row_chunks = kTileN / 8;  // a right tile with its columns contiguous

  // Which output tile: groups of kGroupRows tile rows, columns inner.
  llvm::Value* pid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  const int64_t per_group = kGroupRows * tiles_n;
  llvm::Value* first_m = b_.CreateMul(b_.CreateUDiv(pid, b_.getInt64(per_group)),
                                      b_.getInt64(kGroupRows));
  llvm::Value* group_m = b_.CreateSelect(
      b_.CreateICmpULT(b_.CreateSub(b_.getInt64(tiles_m), first_m), b_.getInt64(kGroupRows)),
      b_.CreateSub(b_.getInt64(tiles_m), first_m), b_.getInt64(kGroupRows));
  llvm::Value* in_group = b_.CreateURem(pid, b_.getInt64(per_group));
  llvm::Value* row0 = b_.CreateMul(b_.CreateAdd(first_m, b_.CreateURem(in_group, group_m)),
                                   b_.getInt64(kTileM));
  llvm::Value* col0 = b_.CreateMul(b_.CreateUDiv(in_group, group_m), b_.getInt64(kTileN));

  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* lane = b_.CreateAnd(tid, 31);
  llvm::Value* warp = b_.CreateLShr(tid, 5);
  llvm::Value* warp_row = b_.CreateMul(b_.CreateURem(warp, b_.getInt64(tiling.warps_m)),
                                       b_.getInt64(kWarpM));
  llvm::Value* warp_col = b_.CreateMul(b_.CreateUDiv(warp, b_.getInt64(tiling.warps_m)),
                                       b_.getInt64(kWarpN));

  LoopChain batch;
  batch.loops = mm.batch_loops;
  batch.points = mm.batch;
  SetChainVars(batch, Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z));
  std::vector<llvm::Value*> batch_vars;
  for (const kernel::Stmt* l : mm.batch_loops) batch_vars.push_back(values_->vars[l->var]);
  auto restore_batch = [&] {
    for (size_t i = 0; i < batch_vars.size(); ++i) values_->vars[mm.batch_loops[i]->var] = batch_vars[i];
  };
  // Each operand's base for this batch: its index with row, k, column at 0.
  auto base_of = [&](const MmaOperand& op) {
    values_->ClearCache();
    restore_batch();
    if (mm.i_var >= 0) values_->vars[mm.i_var] = b_.getInt64(0);
    values_->vars[mm.k_var] = b_.getInt64(0);
    values_->vars[mm.j_var] = b_.getInt64(0);
    llvm::Value* p = values_->Pointer(op.buffer, values_->Emit(op.index));
    values_->ClearCache();
    return b_.CreateAddrSpaceCast(p, b_.getPtrTy(1));
  };
  llvm::Value* a_base = base_of(plan.a);
  llvm::Value* b_base = base_of(plan.b);

  llvm::Type* i8 = b_.getInt8Ty();
  llvm::Value* smem = SharedArray(i8, kStages * kStageBytes, "mma_tiles");
  llvm::cast<llvm::GlobalVariable>(smem)->setAlignment(llvm::Align(128));
  auto swizzled = [&](llvm::Value* row, llvm::Value* chunk, int row_bytes) {
    // Rows of 64 bytes: chunk ^ (row/2 % 4); longer rows: chunk ^ (row % 8).
    llvm::Value* mix =
        row_bytes == 64 ? b_.CreateAnd(b_.CreateLShr(row, 1), 3) : b_.CreateAnd(row, 7);
    return b_.CreateAdd(b_.CreateMul(row, b_.getInt64(row_bytes)),
                        b_.CreateMul(b_.CreateXor(chunk, mix), b_.getInt64(16)));
  };
  llvm::Function* copy = llvm::Intrinsic::getDeclaration(
      &module_, llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s);
  // One 16-byte chunk of an operand: (outer, chunk) of the stored matrix's
  // rows; zero-filled where `inside` is false (the address stays the base).
  auto copy_chunk = [&](llvm::Value* stage, int region, llvm::Value* smem_offset, llvm::Value* base,
                        llvm::Value* element, llvm::Value* inside) {
    llvm::Value* dst = b_.CreateInBoundsGEP(
        i8, smem, b_.CreateAdd(b_.CreateAdd(b_.CreateMul(stage, b_.getInt64(kStageBytes)),
                                            b_.getInt64(region * kABytes)),
                               smem_offset));
    llvm::Value* src = b_.CreateGEP(b_.getInt16Ty(), base,
                                    b_.CreateSelect(inside, element, b_.getInt64(0)));
    b_.CreateCall(copy, {dst, src, b_.CreateSelect(inside, b_.getInt32(16), b_.getInt32(0))});
  };
  auto load_tile = [&](llvm::Value* stage, llvm::Value* k0) {
    // Left: tile_m rows x 4 chunks of k.
    for (int p = 0; p < 4 * kTileM / kThreads; ++p) {
      llvm::Value* q = b_.CreateAdd(tid, b_.getInt64(p * kThreads));
      llvm::Value* r = b_.CreateLShr(q, 2);
      llvm::Value* c = b_.CreateAnd(q, 3);
      llvm::Value* i = b_.CreateAdd(row0, r);
      llvm::Value* k = b_.CreateAdd(k0, b_.CreateMul(c, b_.getInt64(8)));
      llvm::Value* in_a = b_.CreateAnd(b_.CreateICmpULT(i, b_.getInt64(mm.m)),
                                       b_.CreateICmpULT(k, b_.getInt64(mm.k)));
      copy_chunk(stage, 0, swizzled(r, c, 64), a_base,
                 b_.CreateAdd(b_.CreateMul(i, b_.getInt64(plan.a.row_stride)), k), in_a);
    }
    for (int p = 0; p < 4 * kTileN / kThreads; ++p) {
      llvm::Value* q = b_.CreateAdd(tid, b_.getInt64(p * kThreads));
      if (plan.b.k_contiguous) {  // tile_n columns x 4 chunks of k
        llvm::Value* r = b_.CreateLShr(q, 2);
        llvm::Value* c = b_.CreateAnd(q, 3);
        llvm::Value* j = b_.CreateAdd(col0, r);
        llvm::Value* k = b_.CreateAdd(k0, b_.CreateMul(c, b_.getInt64(8)));
        llvm::Value* in_b = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm.n)),
                                         b_.CreateICmpULT(k, b_.getInt64(mm.k)));
        copy_chunk(stage, 1, swizzled(r, c, 64), b_base,
                   b_.CreateAdd(b_.CreateMul(j, b_.getInt64(plan.b.row_stride)), k), in_b);
      } else {  // 32 k x tile_n / 8 chunks of columns
        llvm::Value* kr = b_.CreateUDiv(q, b_.getInt64(b_row_chunks));
        llvm::Value* cc = b_.CreateURem(q, b_.getInt64(b_row_chunks));
        llvm::Value* kb = b_.CreateAdd(k0, kr);
        llvm::Value* j = b_.CreateAdd(col0, b_.CreateMul(cc, b_.getInt64(8)));
        llvm::Value* in_b = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm.n)),
                                         b_.CreateICmpULT(kb, b_.getInt64(mm.k)));
        copy_chunk(stage, 1, swizzled(kr, cc, kTileN * 2), b_base,
                   b_.CreateAdd(b_.CreateMul(kb, b_.getInt64(plan.b.row_stride)), j), in_b);
      }
    }
  };
  auto commit = [&] {
    b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_cp_async_commit_group));
  };

  // Per lane, the shared offsets its ldmatrix rows start at, per k16 step.
  llvm::Value* a_frag[2][kMaxFrags];
  llvm::Value* b_frag[2][kMaxFrags / 2];
  llvm::Value* lane15 = b_.CreateAnd(lane, 15);
  llvm::Value* lane7 = b_.CreateAnd(lane, 7);
  llvm::Value* half = b_.CreateLShr(lane, 4);                  // 0 or 1
  llvm::Value* odd8 = b_.CreateAnd(b_.CreateLShr(lane, 3), 1);  // matrix & 1
  for (int kk = 0; kk < 2; ++kk) {
    for (int mi = 0; mi < kFragsM; ++mi) {
      llvm::Value* r = b_.CreateAdd(warp_row, b_.CreateAdd(lane15, b_.getInt64(mi * 16)));
      a_frag[kk][mi] = swizzled(r, b_.CreateAdd(half, b_.getInt64(kk * 2)), 64);
    }
    for (int np = 0; np < kFragsN / 2; ++np) {
      if (plan.b.k_contiguous) {
        llvm::Value* n = b_.CreateAdd(b_.CreateAdd(warp_col, b_.getInt64(np * 16)),
                                      b_.CreateAdd(b_.CreateMul(half, b_.getInt64(8)), lane7));
        b_frag[kk][np] = swizzled(n, b_.CreateAdd(odd8, b_.getInt64(kk * 2)), 64);
      } else {
        llvm::Value* kr = b_.CreateAdd(b_.getInt64(kk * 16),
                                       b_.CreateAdd(b_.CreateMul(odd8, b_.getInt64(8)), lane7));
        llvm::Value* chunk = b_.CreateAdd(
            b_.CreateLShr(b_.CreateAdd(warp_col, b_.getInt64(np * 16)), 3), half);
        b_frag[kk][np] = swizzled(kr, chunk, kTileN * 2);
      }
    }
  }
  llvm::Type* smem_ptr = b_.getPtrTy(3);
  llvm::Function* ldmatrix_a = llvm::Intrinsic::getDeclaration(
      &module_, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {smem_ptr});
  llvm::Function* ldmatrix_b = llvm::Intrinsic::getDeclaration(
      &module_,
      plan.b.k_contiguous ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16
                          : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16,
      {smem_ptr});
  const bool bf16 = plan.dtype == DType::kBF16;
  llvm::Function* mma = llvm::Intrinsic::getDeclaration(
      &module_, bf16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                     : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32);
  llvm::Type* half2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
  auto operand = [&](llvm::Value* reg) { return bf16 ? reg : b_.CreateBitCast(reg, half2); };
  auto fragments = [&](llvm::Function* f, llvm::Value* offset, llvm::Value* out[4]) {
    llvm::Value* regs = b_.CreateCall(f, {b_.CreateInBoundsGEP(i8, smem, offset)});
    for (unsigned x = 0; x < 4; ++x) out[x] = operand(b_.CreateExtractValue(regs, x));
  };

  const int64_t k_tiles = (mm.k + kTileK - 1) / kTileK;
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_tile(b_.getInt64(s), b_.getInt64(s * kTileK));
    commit();
  }
  ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
    b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_cp_async_wait_group),
                  {b_.getInt32(kStages - 2)});
    Barrier();
    // Refill the stage every warp has just finished with.
    llvm::Value* ahead = b_.CreateAdd(kt, b_.getInt64(kStages - 1));
    If(b_.CreateICmpSLT(ahead, b_.getInt64(k_tiles)), [&] {
      load_tile(b_.CreateURem(ahead, b_.getInt64(kStages)), b_.CreateMul(ahead, b_.getInt64(kTileK)));
    });
    commit();
    llvm::Value* stage = b_.CreateMul(b_.CreateURem(kt, b_.getInt64(kStages)), b_.getInt64(kStageBytes));
    llvm::Value* acc[kMaxFrags][kMaxFrags][4];
    for (int mi = 0; mi < kFragsM; ++mi) {
      for (int ni = 0; ni < kFragsN; ++ni) {
        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = b_.CreateLoad(f32, sums[mi][ni][e]);
      }
    }
    for (int kk = 0; kk < 2; ++kk) {
      llvm::Value* a[kMaxFrags][4];
      llvm::Value* bv[kMaxFrags][2];
      for (int mi = 0; mi < kFragsM; ++mi) fragments(ldmatrix_a, b_.CreateAdd(stage, a_frag[kk][mi]), a[mi]);
      for (int np = 0; np < kFragsN / 2; ++np) {
        llvm::Value* regs[4];
        fragments(ldmatrix_b, b_.CreateAdd(b_.CreateAdd(stage, b_.getInt64(kABytes)), b_frag[kk][np]),
                  regs);
        bv[2 * np][0] = regs[0];
        bv[2 * np][1] = regs[1];
        bv[2 * np + 1][0] = regs[2];
        bv[2 * np + 1][1] = regs[3];
      }
      for (int mi = 0; mi < kFragsM; ++mi) {
        for (int ni = 0; ni < kFragsN; ++ni) {
          llvm::Value* d = b_.CreateCall(
              mma, {a[mi][0], a[mi][1], a[mi][2], a[mi][3], bv[ni][0], bv[ni][1], acc[mi][ni][0],
                    acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]});
          for (unsigned e = 0; e < 4; ++e) acc[mi][ni][e] = b_.CreateExtractValue(d, e);
        }
      }
    }
    for (int mi = 0; mi < kFragsM; ++mi) {
      for (int ni = 0; ni < kFragsN; ++ni) {
        for (int e = 0; e < 4; ++e) b_.CreateStore(acc[mi][ni][e], sums[mi][ni][e]);
      }
    }
  });
  b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_cp_async_wait_group),
                {b_.getInt32(0)});

  // Accumulator e of fragment (mi, ni): row lane/4 (+8 for e >= 2), column
  // 2 * (lane % 4) + e % 2.
  llvm::Value* frag_row = b_.CreateAdd(b_.CreateAdd(row0, warp_row), b_.CreateLShr(lane, 2));
  llvm::Value* frag_col = b_.CreateAdd(b_.CreateAdd(col0, warp_col),
                                       b_.CreateMul(b_.CreateAnd(lane, 3), b_.getInt64(2)));
  for (int mi = 0; mi < kFragsM; ++mi) {
    for (int ni = 0; ni < kFragsN; ++ni) {
      for (int e = 0; e < 4; ++e) {
        llvm::Value* i = b_.CreateAdd(frag_row, b_.getInt64(mi * 16 + (e >= 2 ? 8 : 0)));
        llvm::Value* j = b_.CreateAdd(frag_col, b_.getInt64(ni * 8 + (e & 1)));
        llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(i, b_.getInt64(mm.m)),
                                           b_.CreateICmpULT(j, b_.getInt64(mm.n)));
        If(inside, [&] {
          b_.CreateStore(b_.CreateFPExt(b_.CreateLoad(f32, sums[mi][ni][e]), acc_type),
                         values_->accs[out_acc]);
          restore_batch();
          if (mm.i_var >= 0) values_->vars[mm.i_var] = i;
          values_->vars[mm.out_j_var] = j;
          EmitStmt(*mm.store);
        });
      }
    }
  }
}

}  // namespace rk::compiler::cuda
