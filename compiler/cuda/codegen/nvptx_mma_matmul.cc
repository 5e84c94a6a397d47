// The tensor-core matmul form (nvptx_kernel.h, planning/mma_matmul.h): a
// block of 4 warps computes a 128x128 output tile, each warp 64x64 of it as
// 4x8 `mma.sync.m16n8k16` tiles (m16n8k8 in TF32 for f32 operands) with f32
// accumulators in registers. Operand tiles 64 bytes deep (32 k, or 16 of
// f32) go global -> shared with `cp.async` (16 bytes a copy, zero-filled
// outside the matrix) through a ring of 3 stages, so two tiles are in flight
// while the warps work on the third; fragments come out of shared memory
// with `ldmatrix` (`.trans` for a 16-bit right operand stored with its
// columns contiguous; such an f32 one is read a word at a time). Shared rows
// are XOR-swizzled by 16-byte chunk, so the copies and the ldmatrix reads do
// not conflict on banks. Blocks walk the output in groups of 8 tile rows, so
// the tiles running at once share their operand panels in L2. Each output
// goes through the kernel's own store statement (casts, fused epilogues,
// faults), exactly as in the SIMT form, with the f32 sum widened to the
// kernel's accumulator.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/mma_matmul.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

namespace {
constexpr int kTileKBytes = 64;  // a tile's depth: 32 k of f16/bf16, 16 of f32
constexpr int kGroupRows = 8;    // tile rows a group of blocks walks
constexpr int kMaxFrags = 8;     // m16 or n8 tiles a warp, at most

// The block's output tile and how its warps split it. Measured on an H200,
// bf16 4096^3 (docs/BENCHMARKS_HISTORY.md): 4 warps of 64x64 in 3 stages 392
// TFLOP/s; 8 warps of 64x32 349; 128x256 or 256x128 in 2 stages 324 / 308;
// 64x128 in 4 stages 346.
struct MmaTiling {
  int tile_m = 128, tile_n = 128;
  int warps_m = 2, warps_n = 2;
  int stages = 3;  // 48 KiB of shared memory, the most a block has without opting in
  int threads() const { return 32 * warps_m * warps_n; }
  int warp_m() const { return tile_m / warps_m; }
  int warp_n() const { return tile_n / warps_n; }
  int a_bytes() const { return tile_m * kTileKBytes; }
  int b_bytes() const { return tile_n * kTileKBytes; }
  int stage_bytes() const { return a_bytes() + b_bytes(); }
};

// The IR of one block's tile that needs nothing of the kernel's own
// expressions: tile placement, cp.async staging, ldmatrix fragments, mma
// steps. Shared offsets are bytes within the ring of stages.
class MmaTile {
 public:
  MmaTile(llvm::IRBuilder<>& b, llvm::Module& module, const MmaTiling& tiling,
          const MatmulPattern& mm, const MmaPlan& plan)
      : b_(b),
        module_(module),
        t_(tiling),
        mm_(mm),
        plan_(plan),
        elem_bytes_(plan.dtype == DType::kF32 ? 4 : 2),
        chunk_elems_(kMmaChunkBytes / elem_bytes_) {}

  // Elements of k a tile holds.
  int k_tile() const { return kTileKBytes / elem_bytes_; }

  // The tile's first row and column from the block index: groups of
  // kGroupRows tile rows, columns inner.
  void Place(llvm::Value* block, llvm::Value* thread) {
    const int64_t tiles_m = (mm_.m + t_.tile_m - 1) / t_.tile_m;
    const int64_t per_group = kGroupRows * ((mm_.n + t_.tile_n - 1) / t_.tile_n);
    llvm::Value* first_m = b_.CreateMul(b_.CreateUDiv(block, b_.getInt64(per_group)),
                                        b_.getInt64(kGroupRows));
    llvm::Value* left = b_.CreateSub(b_.getInt64(tiles_m), first_m);
    llvm::Value* group_m = b_.CreateSelect(b_.CreateICmpULT(left, b_.getInt64(kGroupRows)), left,
                                           b_.getInt64(kGroupRows));
    llvm::Value* in_group = b_.CreateURem(block, b_.getInt64(per_group));
    row0_ = b_.CreateMul(b_.CreateAdd(first_m, b_.CreateURem(in_group, group_m)),
                         b_.getInt64(t_.tile_m));
    col0_ = b_.CreateMul(b_.CreateUDiv(in_group, group_m), b_.getInt64(t_.tile_n));
    tid_ = thread;
    lane_ = b_.CreateAnd(thread, 31);
    llvm::Value* warp = b_.CreateLShr(thread, 5);
    warp_row_ =
        b_.CreateMul(b_.CreateURem(warp, b_.getInt64(t_.warps_m)), b_.getInt64(t_.warp_m()));
    warp_col_ =
        b_.CreateMul(b_.CreateUDiv(warp, b_.getInt64(t_.warps_m)), b_.getInt64(t_.warp_n()));
  }

  // Operand bases (global pointers) and the shared ring.
  void SetMemory(llvm::Value* a_base, llvm::Value* b_base, llvm::Value* smem) {
    a_base_ = a_base;
    b_base_ = b_base;
    smem_ = smem;
  }

  // Issues the copies of the k tile at k0 into stage `stage`.
  void LoadStage(llvm::Value* stage, llvm::Value* k0) {
    for (int p = 0; p < 4 * t_.tile_m / t_.threads(); ++p) {  // rows x 4 chunks of k
      llvm::Value* q = b_.CreateAdd(tid_, b_.getInt64(p * t_.threads()));
      KContiguousChunk(stage, 0, q, row0_, mm_.m, plan_.a, a_base_, k0);
    }
    const int b_row_bytes = t_.tile_n * elem_bytes_;
    const int b_row_chunks = b_row_bytes / kMmaChunkBytes;
    for (int p = 0; p < 4 * t_.tile_n / t_.threads(); ++p) {  // either layout: 4 * tile_n chunks
      llvm::Value* q = b_.CreateAdd(tid_, b_.getInt64(p * t_.threads()));
      if (plan_.b.k_contiguous) {  // columns x 4 chunks of k
        KContiguousChunk(stage, t_.a_bytes(), q, col0_, mm_.n, plan_.b, b_base_, k0);
        continue;
      }
      // k_tile rows of k, each of tile_n columns in chunks.
      llvm::Value* kr = b_.CreateUDiv(q, b_.getInt64(b_row_chunks));
      llvm::Value* cc = b_.CreateURem(q, b_.getInt64(b_row_chunks));
      llvm::Value* k = b_.CreateAdd(k0, kr);
      llvm::Value* j = b_.CreateAdd(col0_, b_.CreateMul(cc, b_.getInt64(chunk_elems_)));
      llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm_.n)),
                                         b_.CreateICmpULT(k, b_.getInt64(mm_.k)));
      CopyChunk(stage, t_.a_bytes(), Swizzled(kr, cc, b_row_bytes), b_base_,
                b_.CreateAdd(b_.CreateMul(k, b_.getInt64(plan_.b.row_stride)), j), inside);
    }
  }

  void Commit() { Call(llvm::Intrinsic::nvvm_cp_async_commit_group, {}); }
  // Waits until at most `pending` groups of copies are in flight.
  void Wait(int pending) {
    Call(llvm::Intrinsic::nvvm_cp_async_wait_group, {b_.getInt32(pending)});
  }

  // Per lane, the offsets its ldmatrix rows start at in a stage, per k step
  // (32 bytes of k: 16 f16/bf16 or 8 f32): an x4 load covers an m16
  // fragment of the left operand, or two n8 fragments of the right one
  // (their 32-bit halves for f32, whose m16n8k8 fragments hold one element a
  // register); an f32 right operand with its columns contiguous is read a
  // word at a time instead (ldmatrix transposes 16-bit elements only).
  void PlanFragments() {
    llvm::Value* lane7 = b_.CreateAnd(lane_, 7);
    llvm::Value* half = b_.CreateLShr(lane_, 4);                   // 0 or 1
    llvm::Value* odd8 = b_.CreateAnd(b_.CreateLShr(lane_, 3), 1);  // matrix & 1
    for (int kk = 0; kk < 2; ++kk) {
      for (int mi = 0; mi < frags_m(); ++mi) {
        llvm::Value* r =
            b_.CreateAdd(warp_row_, b_.CreateAdd(b_.CreateAnd(lane_, 15), b_.getInt64(mi * 16)));
        a_frag_[kk][mi] = Swizzled(r, b_.CreateAdd(half, b_.getInt64(kk * 2)), 64);
      }
      for (int np = 0; np < frags_n() / 2; ++np) {
        llvm::Value* first_col = b_.CreateAdd(warp_col_, b_.getInt64(np * 16));
        if (plan_.b.k_contiguous) {
          llvm::Value* n =
              b_.CreateAdd(first_col, b_.CreateAdd(b_.CreateMul(half, b_.getInt64(8)), lane7));
          b_frag_[kk][np] = Swizzled(n, b_.CreateAdd(odd8, b_.getInt64(kk * 2)), 64);
        } else if (elem_bytes_ == 2) {
          llvm::Value* kr = b_.CreateAdd(b_.getInt64(kk * 16),
                                         b_.CreateAdd(b_.CreateMul(odd8, b_.getInt64(8)), lane7));
          b_frag_[kk][np] =
              Swizzled(kr, b_.CreateAdd(b_.CreateLShr(first_col, 3), half), t_.tile_n * 2);
        }
      }
      if (plan_.b.k_contiguous || elem_bytes_ == 2) continue;
      // m16n8k8 tf32: b0 = B[k = lane % 4][n = lane / 4], b1 four k further.
      for (int ni = 0; ni < frags_n(); ++ni) {
        llvm::Value* n = b_.CreateAdd(b_.CreateAdd(warp_col_, b_.getInt64(ni * 8)),
                                      b_.CreateLShr(lane_, 2));
        for (int h = 0; h < 2; ++h) {
          llvm::Value* kr = b_.CreateAdd(b_.CreateAnd(lane_, 3), b_.getInt64(kk * 8 + h * 4));
          b_word_[kk][ni][h] =
              b_.CreateAdd(Swizzled(kr, b_.CreateLShr(n, 2), t_.tile_n * 4),
                           b_.CreateMul(b_.CreateAnd(n, 3), b_.getInt64(4)));
        }
      }
    }
  }

  // acc[mi][ni][e] plus the products of the stage at byte offset `stage`.
  void Multiply(llvm::Value* stage, llvm::Value* acc[kMaxFrags][kMaxFrags][4]) {
    llvm::Intrinsic::ID id = llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32;
    if (plan_.dtype == DType::kBF16) id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
    if (plan_.dtype == DType::kF16) id = llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
    llvm::Function* mma = llvm::Intrinsic::getDeclaration(&module_, id);
    llvm::Value* b_stage = b_.CreateAdd(stage, b_.getInt64(t_.a_bytes()));
    for (int kk = 0; kk < 2; ++kk) {
      llvm::Value* a[kMaxFrags][4];
      llvm::Value* bv[kMaxFrags][4];  // two n8 fragments an x4 load: b0, b1, b0', b1'
      for (int mi = 0; mi < frags_m(); ++mi) {
        Fragments(false, b_.CreateAdd(stage, a_frag_[kk][mi]), a[mi]);
      }
      for (int np = 0; np < frags_n() / 2; ++np) {
        if (plan_.b.k_contiguous || elem_bytes_ == 2) {
          Fragments(!plan_.b.k_contiguous, b_.CreateAdd(b_stage, b_frag_[kk][np]), bv[np]);
          continue;
        }
        for (int x = 0; x < 4; ++x) {
          llvm::Value* at = b_.CreateAdd(b_stage, b_word_[kk][2 * np + x / 2][x % 2]);
          bv[np][x] = Tf32(b_.CreateLoad(b_.getInt32Ty(),
                                         b_.CreateInBoundsGEP(b_.getInt8Ty(), smem_, at)));
        }
      }
      for (int mi = 0; mi < frags_m(); ++mi) {
        for (int ni = 0; ni < frags_n(); ++ni) {
          llvm::Value* const* b = &bv[ni / 2][2 * (ni % 2)];
          llvm::Value* d = b_.CreateCall(mma, {a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[0], b[1],
                                               acc[mi][ni][0], acc[mi][ni][1], acc[mi][ni][2],
                                               acc[mi][ni][3]});
          for (unsigned e = 0; e < 4; ++e) acc[mi][ni][e] = b_.CreateExtractValue(d, e);
        }
      }
    }
  }

  // Row and column of accumulator e of fragment (mi, ni): row lane/4 (+8 for
  // e >= 2), column 2 * (lane % 4) + e % 2.
  llvm::Value* OutputRow(int mi, int e) {
    llvm::Value* first = b_.CreateAdd(b_.CreateAdd(row0_, warp_row_), b_.CreateLShr(lane_, 2));
    return b_.CreateAdd(first, b_.getInt64(mi * 16 + (e >= 2 ? 8 : 0)));
  }
  llvm::Value* OutputColumn(int ni, int e) {
    llvm::Value* first = b_.CreateAdd(b_.CreateAdd(col0_, warp_col_),
                                      b_.CreateMul(b_.CreateAnd(lane_, 3), b_.getInt64(2)));
    return b_.CreateAdd(first, b_.getInt64(ni * 8 + (e & 1)));
  }

  int frags_m() const { return t_.warp_m() / 16; }
  int frags_n() const { return t_.warp_n() / 8; }

 private:
  // Rows of 64 bytes: chunk ^ (row/2 % 4); longer rows: chunk ^ (row % 8).
  llvm::Value* Swizzled(llvm::Value* row, llvm::Value* chunk, int row_bytes) {
    llvm::Value* mix =
        row_bytes == 64 ? b_.CreateAnd(b_.CreateLShr(row, 1), 3) : b_.CreateAnd(row, 7);
    return b_.CreateAdd(b_.CreateMul(row, b_.getInt64(row_bytes)),
                        b_.CreateMul(b_.CreateXor(chunk, mix), b_.getInt64(16)));
  }

  // Chunk q of a tile stored with k contiguous: row q/4 (counted from
  // `first`, of `extent`), k chunk q%4.
  void KContiguousChunk(llvm::Value* stage, int region, llvm::Value* q, llvm::Value* first,
                        int64_t extent, const MmaOperand& op, llvm::Value* base, llvm::Value* k0) {
    llvm::Value* r = b_.CreateLShr(q, 2);
    llvm::Value* c = b_.CreateAnd(q, 3);
    llvm::Value* outer = b_.CreateAdd(first, r);
    llvm::Value* k = b_.CreateAdd(k0, b_.CreateMul(c, b_.getInt64(chunk_elems_)));
    llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(outer, b_.getInt64(extent)),
                                       b_.CreateICmpULT(k, b_.getInt64(mm_.k)));
    CopyChunk(stage, region, Swizzled(r, c, 64), base,
              b_.CreateAdd(b_.CreateMul(outer, b_.getInt64(op.row_stride)), k), inside);
  }

  // One 16-byte copy; zero-filled where `inside` is false (the address
  // stays the base).
  void CopyChunk(llvm::Value* stage, int region, llvm::Value* offset, llvm::Value* base,
                 llvm::Value* element, llvm::Value* inside) {
    llvm::Value* stage_start = b_.CreateMul(stage, b_.getInt64(t_.stage_bytes()));
    llvm::Value* dst = b_.CreateInBoundsGEP(
        b_.getInt8Ty(), smem_,
        b_.CreateAdd(b_.CreateAdd(stage_start, b_.getInt64(region)), offset));
    llvm::Value* src =
        b_.CreateGEP(b_.getIntNTy(8 * elem_bytes_), base,
                     b_.CreateSelect(inside, element, b_.getInt64(0)));
    Call(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s,
         {dst, src, b_.CreateSelect(inside, b_.getInt32(16), b_.getInt32(0))});
  }

  // Four 8x8 matrices from shared memory by ldmatrix, as mma operands.
  void Fragments(bool transposed, llvm::Value* offset, llvm::Value* out[4]) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(
        &module_,
        transposed ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
                   : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16,
        {b_.getPtrTy(3)});
    llvm::Value* regs = b_.CreateCall(f, {b_.CreateInBoundsGEP(b_.getInt8Ty(), smem_, offset)});
    llvm::Type* half2 = llvm::FixedVectorType::get(b_.getHalfTy(), 2);
    for (unsigned x = 0; x < 4; ++x) {
      llvm::Value* reg = b_.CreateExtractValue(regs, x);
      if (plan_.dtype == DType::kF16) reg = b_.CreateBitCast(reg, half2);
      if (plan_.dtype == DType::kF32) reg = Tf32(reg);
      out[x] = reg;
    }
  }

  // The bits of an f32 rounded to TF32 (to nearest, ties away from zero).
  llvm::Value* Tf32(llvm::Value* bits) {
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_f2tf32_rna),
                         {b_.CreateBitCast(bits, b_.getFloatTy())});
  }

  void Call(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
    b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, id), args);
  }

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
  const MmaTiling& t_;
  const MatmulPattern& mm_;
  const MmaPlan& plan_;
  const int elem_bytes_;   // 2, or 4 for f32 (TF32)
  const int chunk_elems_;  // elements a 16-byte chunk holds
  llvm::Value *row0_ = nullptr, *col0_ = nullptr, *tid_ = nullptr, *lane_ = nullptr;
  llvm::Value *warp_row_ = nullptr, *warp_col_ = nullptr;
  llvm::Value *a_base_ = nullptr, *b_base_ = nullptr, *smem_ = nullptr;
  llvm::Value* a_frag_[2][kMaxFrags] = {};
  llvm::Value* b_frag_[2][kMaxFrags / 2] = {};
  llvm::Value* b_word_[2][kMaxFrags][2] = {};  // f32 right operands with columns contiguous
};

}  // namespace

void NvptxKernel::EmitMmaMatmul(KernelLaunch& launch, const MmaPlan& plan) {
  const MatmulPattern mm = shape_->matmul;
  const MmaTiling tiling;
  MmaTile tile(b_, module_, tiling, mm, plan);
  const int64_t tiles = ((mm.m + tiling.tile_m - 1) / tiling.tile_m) *
                        ((mm.n + tiling.tile_n - 1) / tiling.tile_n);
  launch.block = {static_cast<uint32_t>(tiling.threads()), 1, 1};
  launch.grid = {static_cast<uint32_t>(tiles), 1,
                 static_cast<uint32_t>(std::max<int64_t>(mm.batch, 1))};
  Annotate(module_, fn_, "maxntidx", tiling.threads());
  llvm::Type* f32 = b_.getFloatTy();

  // The store reads an accumulator that holds the current output's sum.
  const int32_t out_acc = static_cast<int32_t>(kernel_->accumulators.size());
  kernel_->accumulators.push_back(mm.acc_dtype);
  kernel_->exprs[mm.row_load].kind = kernel::ExprKind::kAccRead;
  kernel_->exprs[mm.row_load].acc = out_acc;
  llvm::Type* acc_type = values_->ComputeType(mm.acc_dtype);
  values_->accs.push_back(b_.CreateAlloca(acc_type));
  llvm::Value* sums[kMaxFrags][kMaxFrags][4];
  for (int mi = 0; mi < tile.frags_m(); ++mi) {
    for (int ni = 0; ni < tile.frags_n(); ++ni) {
      for (llvm::Value*& s : sums[mi][ni]) {
        s = b_.CreateAlloca(f32);
        b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), s);
      }
    }
  }
  if (mm.batch == 0 || mm.m == 0 || mm.n == 0) return;
  tile.Place(Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
             Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));

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
  llvm::Value* smem =
      SharedArray(b_.getInt8Ty(), tiling.stages * tiling.stage_bytes(), "mma_tiles");
  llvm::cast<llvm::GlobalVariable>(smem)->setAlignment(llvm::Align(128));
  tile.SetMemory(base_of(plan.a), base_of(plan.b), smem);
  tile.PlanFragments();

  // The ring: stages - 1 tiles in flight before the first step; each step
  // waits for its own, refills the stage every warp has just finished with,
  // and multiplies.
  const int stages = tiling.stages;
  const int64_t k_tiles = (mm.k + tile.k_tile() - 1) / tile.k_tile();
  for (int s = 0; s < stages - 1; ++s) {
    if (s < k_tiles) tile.LoadStage(b_.getInt64(s), b_.getInt64(s * tile.k_tile()));
    tile.Commit();
  }
  ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
    tile.Wait(stages - 2);
    Barrier();
    llvm::Value* ahead = b_.CreateAdd(kt, b_.getInt64(stages - 1));
    If(b_.CreateICmpSLT(ahead, b_.getInt64(k_tiles)), [&] {
      tile.LoadStage(b_.CreateURem(ahead, b_.getInt64(stages)),
                     b_.CreateMul(ahead, b_.getInt64(tile.k_tile())));
    });
    tile.Commit();
    llvm::Value* acc[kMaxFrags][kMaxFrags][4];
    for (int mi = 0; mi < tile.frags_m(); ++mi) {
      for (int ni = 0; ni < tile.frags_n(); ++ni) {
        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = b_.CreateLoad(f32, sums[mi][ni][e]);
      }
    }
    llvm::Value* stage = b_.CreateURem(kt, b_.getInt64(stages));
    tile.Multiply(b_.CreateMul(stage, b_.getInt64(tiling.stage_bytes())), acc);
    for (int mi = 0; mi < tile.frags_m(); ++mi) {
      for (int ni = 0; ni < tile.frags_n(); ++ni) {
        for (int e = 0; e < 4; ++e) b_.CreateStore(acc[mi][ni][e], sums[mi][ni][e]);
      }
    }
  });
  tile.Wait(0);

  for (int mi = 0; mi < tile.frags_m(); ++mi) {
    for (int ni = 0; ni < tile.frags_n(); ++ni) {
      for (int e = 0; e < 4; ++e) {
        llvm::Value* i = tile.OutputRow(mi, e);
        llvm::Value* j = tile.OutputColumn(ni, e);
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
