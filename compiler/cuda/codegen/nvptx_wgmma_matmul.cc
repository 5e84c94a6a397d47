// The Hopper tensor-core matmul form (nvptx_kernel.h, planning/wgmma_matmul.h):
// a block of 1 or 2 warpgroups computes a 64 or 128 x N output tile (N = 64,
// 128 or 256), each warpgroup 64 x N of it with `wgmma.mma_async.m64nNk16`
// (f32 sums in registers), both operands read by the tensor cores straight
// from shared memory through matrix descriptors. Operand tiles 64 elements deep go
// global -> shared with `cp.async` (16 bytes a copy, zero-filled outside the
// matrix) into a ring of `stages` in dynamic shared memory, in the 128-byte
// swizzled layouts the descriptors name. Each output goes through the
// kernel's own store statement (casts, fused epilogues, faults), as in the
// mma.sync and SIMT forms, with the f32 sum widened to the accumulator type.
// Two ways to run the k loop: every thread copies and multiplies, a
// block-wide barrier a k tile (the default), or (ws=1) a producer warpgroup
// copies while the consumers multiply, stages handed over by mbarriers; with
// tma=1 one producer thread loads each stage by TMA.
//
// What this relies on, from NVIDIA's PTX ISA (wgmma sections):
//  - Matrix descriptor (64 bits): bits 0-13 start address >> 4, 16-29
//    leading-dimension byte offset >> 4, 32-45 stride-dimension byte offset
//    >> 4, 49-51 base offset (0 when the swizzle pattern starts on a
//    1024-byte boundary, as every tile here does), 62-63 swizzle mode
//    (1 = 128-byte swizzle).
//  - 128-byte swizzle: the 16-byte chunk c of a 128-byte row r is stored at
//    chunk c ^ (r % 8) of that row; the pattern repeats every 8 rows (1024
//    bytes) and is a function of the address bits, so a descriptor may
//    start 32, 64 or 96 bytes into a row to select a k16 slice.
//  - K-major operand (A, and B stored [N, K]): rows of 128 bytes (64 k),
//    8-row groups `stride byte offset` (1024) apart; the leading offset is
//    unused with swizzling.
//  - MN-major operand (B stored [K, N], imm-trans-b = 1): rows of 64 N
//    elements (128 bytes) per k, 8-k groups `stride byte offset` (1024)
//    apart, 64-column blocks `leading byte offset` apart (8192 here: a
//    block holds all 64 k of the tile).
//  - Accumulator D of m64nNk16 with f32: N/2 registers a thread; register
//    i of thread t (warp w = t/32 of the warpgroup, lane l) holds row
//    16w + l/4 + 8 * ((i/2) % 2), column 8 * (i/4) + 2 * (l % 4) + i % 2.
//  - Shared memory written by the generic proxy (cp.async) is made visible
//    to wgmma, which reads through the async proxy, by
//    `fence.proxy.async.shared::cta` before the barrier; `wgmma.fence`
//    precedes the first wgmma of a k tile; `wgmma.commit_group` and
//    `wgmma.wait_group` bound the asynchronous MMAs.
//  - (ws=1) `cp.async.mbarrier.arrive.noinc` arrives on the mbarrier once
//    the thread's earlier cp.asyncs complete, without raising the expected
//    count (so the count includes those arrivals); `mbarrier.try_wait.parity`
//    is true once the phase of that parity has completed; wgmma completion
//    carries an implicit async-to-generic proxy fence, so a stage freed after
//    wgmma.wait_group may be overwritten by cp.async.
//  - (tma=1) A tensor map encoded with 128-byte swizzle makes
//    `cp.async.bulk.tensor` write each box row of 128 bytes with its 16-byte
//    chunks XORed by the row's index mod 8 relative to a 1024-byte-aligned
//    destination: the layouts above. Elements outside the tensor are written
//    as zeros and still count toward the mbarrier's transaction bytes, which
//    `mbarrier.arrive.expect_tx` sets before the copies start. A tensor map
//    may live in kernel parameter space; with the grid_constant annotation
//    LLVM gives its generic address (`cvta.param`).
// LLVM 19's NVPTX has no wgmma or mbarrier-parity intrinsics, so they are
// inline PTX.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/codegen/nvptx_wgmma_tile.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

using wgmma::kMnBlockBytes;
using wgmma::WgmmaTile;

int NvptxKernel::WgmmaTensorMaps() const {
  if (shape_->form != KernelForm::kMatmul || !options_.tensor_cores || !options_.wgmma ||
      shape_->matmul.batch != 1 || !shape_->matmul.batch_loops.empty() || shape_->matmul.k == 0 ||
      shape_->matmul.m == 0 || shape_->matmul.n == 0) {
    return 0;
  }
  const std::optional<MmaPlan> plan =
      PlanMmaMatmul(program_, *kernel_, shape_->matmul, options_.tf32);
  if (!plan) return 0;
  const std::optional<WgmmaTiling> tiling = PlanWgmmaMatmul(*plan, shape_->matmul);
  return tiling && tiling->tma ? 2 : 0;
}

void NvptxKernel::EmitWgmmaMatmul(KernelLaunch& launch, const MmaPlan& plan,
                                  const WgmmaTiling& tiling) {
  const MatmulPattern mm = shape_->matmul;
  WgmmaTile tile(b_, module_, tiling, mm, plan);
  const int64_t tiles =
      ((mm.m + tiling.tile_m - 1) / tiling.tile_m) * ((mm.n + tiling.tile_n - 1) / tiling.tile_n);
  launch.block = {static_cast<uint32_t>(tiling.threads()), 1, 1};
  launch.grid = {static_cast<uint32_t>(tiles), 1,
                 static_cast<uint32_t>(std::max<int64_t>(mm.batch, 1))};
  launch.dynamic_shared_bytes = tiling.shared_bytes();
  Annotate(module_, fn_, "maxntidx", tiling.threads());
  llvm::Type* f32 = b_.getFloatTy();

  // The store reads an accumulator that holds the current output's sum.
  const int32_t out_acc = static_cast<int32_t>(kernel_->accumulators.size());
  kernel_->accumulators.push_back(mm.acc_dtype);
  kernel_->exprs[mm.row_load].kind = kernel::ExprKind::kAccRead;
  kernel_->exprs[mm.row_load].acc = out_acc;
  llvm::Type* acc_type = values_->ComputeType(mm.acc_dtype);
  values_->accs.push_back(b_.CreateAlloca(acc_type));
  std::vector<llvm::Value*> sums(tile.registers());
  for (llvm::Value*& s : sums) {
    s = b_.CreateAlloca(f32);
    b_.CreateStore(llvm::ConstantFP::get(f32, 0.0), s);
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
    for (size_t i = 0; i < batch_vars.size(); ++i)
      values_->vars[mm.batch_loops[i]->var] = batch_vars[i];
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
  // The ring lives in dynamic shared memory (the launch asks for it), one
  // extern array per module that every wgmma entry shares; its start is
  // rounded up to the swizzle pattern's 1024 bytes.
  const char* kRingName = "rk_wgmma_ring";
  llvm::GlobalVariable* ring = module_.getNamedGlobal(kRingName);
  if (ring == nullptr) {
    auto* type = llvm::ArrayType::get(b_.getInt8Ty(), 0);
    ring =
        new llvm::GlobalVariable(module_, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                 kRingName, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
    ring->setAlignment(llvm::Align(16));
  }
  llvm::Value* raw = b_.CreatePtrToInt(ring, b_.getInt32Ty());
  llvm::Value* aligned = b_.CreateAnd(b_.CreateAdd(raw, b_.getInt32(1023)), b_.getInt32(~1023u));
  llvm::Value* ring_start = b_.CreateInBoundsGEP(
      b_.getInt8Ty(), ring, b_.CreateZExt(b_.CreateSub(aligned, raw), b_.getInt64Ty()));
  tile.SetMemory(base_of(plan.a), base_of(plan.b), ring_start, aligned);
  // TMA needs each operand's offset in its buffer as a constant (the tensor
  // maps are encoded on the host); else the producer copies with cp.async.
  auto constant_base = [&](const MmaOperand& op) -> std::optional<int64_t> {
    values_->ClearCache();
    restore_batch();
    if (mm.i_var >= 0) values_->vars[mm.i_var] = b_.getInt64(0);
    values_->vars[mm.k_var] = b_.getInt64(0);
    values_->vars[mm.j_var] = b_.getInt64(0);
    llvm::Value* index = values_->Emit(op.index);
    values_->ClearCache();
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(index)) return c->getSExtValue();
    return std::nullopt;
  };
  bool tma = false;
  if (!tensor_maps_.empty()) {
    // The entry takes the maps whether or not they are used: where an
    // offset is not constant they describe the buffers' starts, unused.
    const std::optional<int64_t> a0 = constant_base(plan.a), b0 = constant_base(plan.b);
    tma = a0.has_value() && b0.has_value();
    {
      const bool bf16 = plan.dtype == DType::kBF16;
      // Rows of one element (a single-row left operand) still need a legal
      // stride.
      auto row_bytes = [&](const MmaOperand& op, int64_t contiguous) {
        return static_cast<uint64_t>(op.row_stride > 0 ? op.row_stride * 2
                                                       : (contiguous * 2 + 15) / 16 * 16);
      };
      const uint32_t k_box = WgmmaTiling::kTileK;
      KernelLaunch::TensorMap a{plan.a.buffer,
                                a0.value_or(0) * 2,
                                bf16,
                                {static_cast<uint64_t>(mm.k), static_cast<uint64_t>(mm.m)},
                                row_bytes(plan.a, mm.k),
                                {k_box, static_cast<uint32_t>(tiling.tile_m)}};
      KernelLaunch::TensorMap b{plan.b.buffer, b0.value_or(0) * 2, bf16, {}, 0, {}};
      if (plan.b.k_contiguous) {
        b.dims = {static_cast<uint64_t>(mm.k), static_cast<uint64_t>(mm.n)};
        b.row_bytes = row_bytes(plan.b, mm.k);
        b.box = {k_box, static_cast<uint32_t>(tiling.tile_n)};
      } else {
        b.dims = {static_cast<uint64_t>(mm.n), static_cast<uint64_t>(mm.k)};
        b.row_bytes = row_bytes(plan.b, mm.n);
        b.box = {64, k_box};  // one 64-column block a copy
      }
      launch.tensor_maps = {a, b};
    }
  }

  const int stages = tiling.stages;
  const int64_t k_tiles = (mm.k + WgmmaTiling::kTileK - 1) / WgmmaTiling::kTileK;
  llvm::Type* i32 = b_.getInt32Ty();
  // Multiplies the stage of k tile `kt` into the sums.
  auto multiply = [&](llvm::Value* kt) {
    std::vector<llvm::Value*> acc(sums.size());
    for (size_t i = 0; i < sums.size(); ++i) acc[i] = b_.CreateLoad(f32, sums[i]);
    llvm::Value* stage = b_.CreateURem(kt, b_.getInt64(stages));
    acc = tile.Multiply(b_.CreateMul(stage, b_.getInt64(tiling.stage_bytes())), acc);
    tile.WaitMultiplies(tiling.pending);
    for (size_t i = 0; i < sums.size(); ++i) b_.CreateStore(acc[i], sums[i]);
  };
  llvm::Value* consumer = b_.getTrue();
  if (!tiling.ws) {
    // All threads copy and multiply: `ahead` tiles in flight before the
    // first step; each step waits for its own, refills a stage whose wgmmas
    // are known complete, and multiplies.
    const int ahead = stages - 1 - tiling.pending;
    for (int s = 0; s < ahead; ++s) {
      if (s < k_tiles) tile.LoadStage(b_.getInt64(s), b_.getInt64(s * WgmmaTiling::kTileK));
      tile.CommitCopies();
    }
    ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
      tile.WaitCopies(ahead - 1);
      tile.FenceProxy();
      Barrier();
      llvm::Value* next = b_.CreateAdd(kt, b_.getInt64(ahead));
      If(b_.CreateICmpSLT(next, b_.getInt64(k_tiles)), [&] {
        tile.LoadStage(b_.CreateURem(next, b_.getInt64(stages)),
                       b_.CreateMul(next, b_.getInt64(WgmmaTiling::kTileK)));
      });
      tile.CommitCopies();
      multiply(kt);
    });
    tile.WaitMultiplies(0);
    tile.WaitCopies(0);
  } else {
    // Warp specialization: the last warpgroup copies, the others multiply.
    // Stage s has two mbarriers after the ring: full[s] completes when the
    // producer's 128 threads' copies of its tile have landed
    // (cp.async.mbarrier.arrive.noinc, so 128 expected arrivals), empty[s]
    // when every consumer thread has seen its wgmmas on it complete. Tile kt
    // uses stage kt % stages in round kt / stages, whose phase parity is
    // round % 2; the producer refills a stage once the previous round's
    // empty phase completed. A wait that never ends traps instead of hanging
    // (after 2^22 tries of at most a microsecond each, the time hint: tens of
    // milliseconds at least and seconds at most, where a stage's wait takes
    // microseconds).
    const int consumers = 128 * tiling.warpgroups();
    llvm::Value* bars = b_.CreateAdd(aligned, b_.getInt32(stages * tiling.stage_bytes()));
    auto bar = [&](int which, llvm::Value* stage) {  // 0 full, 1 empty
      return b_.CreateAdd(bars,
                          b_.CreateAdd(b_.getInt32(which * 8 * stages),
                                       b_.CreateMul(b_.CreateTrunc(stage, i32), b_.getInt32(8))));
    };
    auto wait = [&](llvm::Value* address, llvm::Value* round) {
      llvm::Value* parity = b_.CreateTrunc(b_.CreateAnd(round, 1), i32);
      llvm::BasicBlock* pre = b_.GetInsertBlock();
      llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "mbarrier_wait", fn_);
      llvm::BasicBlock* retry = llvm::BasicBlock::Create(ctx_, "mbarrier_retry", fn_);
      llvm::BasicBlock* stuck = llvm::BasicBlock::Create(ctx_, "mbarrier_stuck", fn_);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "mbarrier_done", fn_);
      b_.CreateBr(loop);
      b_.SetInsertPoint(loop);
      llvm::PHINode* tries = b_.CreatePHI(i32, 2);
      tries->addIncoming(b_.getInt32(0), pre);
      llvm::Value* ok = tile.Asm(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2, 1000;\n"
          " selp.u32 $0, 1, 0, p;\n}",
          {address, parity}, "=r,r,r", true);
      b_.CreateCondBr(b_.CreateICmpNE(ok, b_.getInt32(0)), done, retry);
      b_.SetInsertPoint(retry);
      llvm::Value* next = b_.CreateAdd(tries, b_.getInt32(1));
      tries->addIncoming(next, retry);
      b_.CreateCondBr(b_.CreateICmpULT(next, b_.getInt32(1 << 22)), loop, stuck);
      b_.SetInsertPoint(stuck);
      b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::trap));
      b_.CreateUnreachable();
      b_.SetInsertPoint(done);
      values_->ClearCache();
    };
    If(b_.CreateICmpEQ(tile.thread(), b_.getInt64(0)), [&] {
      for (int s = 0; s < stages; ++s) {
        tile.Asm("mbarrier.init.shared::cta.b64 [$0], $1;",
                 {bar(0, b_.getInt64(s)), b_.getInt32(tma ? 1 : 128)}, "r,r");
        tile.Asm("mbarrier.init.shared::cta.b64 [$0], $1;",
                 {bar(1, b_.getInt64(s)), b_.getInt32(consumers)}, "r,r");
      }
      tile.Asm("fence.mbarrier_init.release.cluster;");
    });
    Barrier();
    consumer = b_.CreateICmpULT(tile.thread(), b_.getInt64(consumers));
    // TMA: the producer's first thread arms full[s] with the stage's bytes
    // and starts the copies, which complete its transaction count.
    if (tma)
      If(b_.CreateICmpEQ(tile.thread(), b_.getInt64(consumers)), [&] {
        llvm::Value* map_a = tensor_maps_[0];
        llvm::Value* map_b = tensor_maps_[1];
        ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
          llvm::Value* stage = b_.CreateURem(kt, b_.getInt64(stages));
          llvm::Value* round = b_.CreateUDiv(kt, b_.getInt64(stages));
          If(b_.CreateICmpUGE(kt, b_.getInt64(stages)),
             [&] { wait(bar(1, stage), b_.CreateSub(round, b_.getInt64(1))); });
          llvm::Value* full = bar(0, stage);
          tile.Asm(
              "{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [$0], "
              "$1;\n}",
              {full, b_.getInt32(tiling.stage_bytes())}, "r,r");
          llvm::Value* at = b_.CreateAdd(
              aligned, b_.CreateMul(b_.CreateTrunc(stage, i32), b_.getInt32(tiling.stage_bytes())));
          llvm::Value* k0 = b_.CreateTrunc(b_.CreateMul(kt, b_.getInt64(WgmmaTiling::kTileK)), i32);
          auto copy = [&](llvm::Value* dst, llvm::Value* map, llvm::Value* c0, llvm::Value* c1) {
            tile.Asm(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                " [$0], [$1, {$2, $3}], [$4];",
                {dst, map, c0, c1, full}, "r,l,r,r,r");
          };
          copy(at, map_a, k0, b_.CreateTrunc(tile.row0(), i32));
          llvm::Value* b_at = b_.CreateAdd(at, b_.getInt32(tiling.a_bytes()));
          llvm::Value* col0 = b_.CreateTrunc(tile.col0(), i32);
          if (plan.b.k_contiguous) {
            copy(b_at, map_b, k0, col0);
          } else {
            for (int block = 0; block < tiling.tile_n / 64; ++block) {
              copy(b_.CreateAdd(b_at, b_.getInt32(block * kMnBlockBytes)), map_b,
                   b_.CreateAdd(col0, b_.getInt32(block * 64)), k0);
            }
          }
        });
      });
    if (!tma)
      If(b_.CreateNot(consumer), [&] {
        tile.SetLoaders(consumers, 128);
        ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
          llvm::Value* stage = b_.CreateURem(kt, b_.getInt64(stages));
          llvm::Value* round = b_.CreateUDiv(kt, b_.getInt64(stages));
          If(b_.CreateICmpUGE(kt, b_.getInt64(stages)),
             [&] { wait(bar(1, stage), b_.CreateSub(round, b_.getInt64(1))); });
          tile.LoadStage(stage, b_.CreateMul(kt, b_.getInt64(WgmmaTiling::kTileK)));
          tile.Asm("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", {bar(0, stage)}, "r");
        });
        b_.CreateCall(
            llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_cp_async_wait_all));
      });
    If(consumer, [&] {
      ForLoop(b_.getInt64(0), b_.getInt64(k_tiles), b_.getInt64(1), [&](llvm::Value* kt) {
        wait(bar(0, b_.CreateURem(kt, b_.getInt64(stages))),
             b_.CreateUDiv(kt, b_.getInt64(stages)));
        tile.FenceProxy();
        multiply(kt);
        // The wgmmas of tile kt - pending are complete: its stage is free.
        llvm::Value* done = b_.CreateSub(kt, b_.getInt64(tiling.pending));
        If(b_.CreateICmpSGE(done, b_.getInt64(0)), [&] {
          tile.Asm("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [$0];\n}",
                   {bar(1, b_.CreateURem(done, b_.getInt64(stages)))}, "r");
        });
      });
      tile.WaitMultiplies(0);
    });
  }

  If(consumer, [&] {
    for (int i = 0; i < tile.registers(); ++i) {
      llvm::Value* row = tile.OutputRow(i);
      llvm::Value* col = tile.OutputColumn(i);
      llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(row, b_.getInt64(mm.m)),
                                         b_.CreateICmpULT(col, b_.getInt64(mm.n)));
      If(inside, [&] {
        b_.CreateStore(b_.CreateFPExt(b_.CreateLoad(f32, sums[i]), acc_type),
                       values_->accs[out_acc]);
        restore_batch();
        if (mm.i_var >= 0) values_->vars[mm.i_var] = row;
        values_->vars[mm.out_j_var] = col;
        EmitStmt(*mm.store);
      });
    }
  });
}

}  // namespace rk::compiler::cuda
