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
#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

namespace {
constexpr int kGroupRows = 8;     // tile rows a group of blocks walks
constexpr int kRowBytes = 128;    // a swizzled row: 64 f16/bf16
constexpr int kAtomBytes = 1024;  // 8 rows: the swizzle pattern's period
constexpr int kMnBlockBytes = WgmmaTiling::kTileK * kRowBytes;  // 64 columns x 64 k

// Descriptor bits other than the start address.
uint64_t DescriptorConstant(uint64_t leading, uint64_t stride) {
  return ((leading >> 4) << 16) | ((stride >> 4) << 32) | (uint64_t{1} << 62);
}

class WgmmaTile {
 public:
  WgmmaTile(llvm::IRBuilder<>& b, llvm::Module& module, const WgmmaTiling& tiling,
            const MatmulPattern& mm, const MmaPlan& plan)
      : b_(b), module_(module), t_(tiling), mm_(mm), plan_(plan) {}

  // Tile placement from the block index (groups of kGroupRows tile rows,
  // columns inner) and the thread's warpgroup, warp and lane.
  void Place(llvm::Value* block, llvm::Value* thread) {
    const int64_t tiles_m = (mm_.m + t_.tile_m - 1) / t_.tile_m;
    const int64_t per_group = kGroupRows * ((mm_.n + t_.tile_n - 1) / t_.tile_n);
    llvm::Value* first_m =
        b_.CreateMul(b_.CreateUDiv(block, b_.getInt64(per_group)), b_.getInt64(kGroupRows));
    llvm::Value* left = b_.CreateSub(b_.getInt64(tiles_m), first_m);
    llvm::Value* group_m = b_.CreateSelect(b_.CreateICmpULT(left, b_.getInt64(kGroupRows)), left,
                                           b_.getInt64(kGroupRows));
    llvm::Value* in_group = b_.CreateURem(block, b_.getInt64(per_group));
    row0_ = b_.CreateMul(b_.CreateAdd(first_m, b_.CreateURem(in_group, group_m)),
                         b_.getInt64(t_.tile_m));
    col0_ = b_.CreateMul(b_.CreateUDiv(in_group, group_m), b_.getInt64(t_.tile_n));
    tid_ = thread;
    loader_ = thread;
    loaders_ = t_.threads();
    lane_ = b_.CreateAnd(thread, 31);
    warp_ = b_.CreateAnd(b_.CreateLShr(thread, 5), 3);
    warpgroup_ = b_.CreateLShr(thread, 7);
  }

  // Operand bases (global pointers) and the ring: `ring` its generic
  // shared pointer, `ring_address` its 32-bit shared address (1024-aligned).
  void SetMemory(llvm::Value* a_base, llvm::Value* b_base, llvm::Value* ring,
                 llvm::Value* ring_address) {
    a_base_ = a_base;
    b_base_ = b_base;
    ring_ = ring;
    ring_address_ = b_.CreateZExt(ring_address, b_.getInt64Ty());
  }

  // Only the threads from `first` on (`count` of them) copy: the producer
  // warpgroup of the warp-specialized form.
  void SetLoaders(int first, int count) {
    loader_ = b_.CreateSub(tid_, b_.getInt64(first));
    loaders_ = count;
  }

  // Issues the copies of the k tile at k0 into stage `stage`.
  void LoadStage(llvm::Value* stage, llvm::Value* k0) {
    llvm::Value* at = b_.CreateMul(stage, b_.getInt64(t_.stage_bytes()));
    const int row_chunks = kRowBytes / kMmaChunkBytes;  // 8
    for (int p = 0; p < t_.tile_m * row_chunks / loaders_; ++p) {
      KMajorChunk(at, Chunk(p), row0_, mm_.m, plan_.a, a_base_, k0);
    }
    llvm::Value* b_at = b_.CreateAdd(at, b_.getInt64(t_.a_bytes()));
    const int b_copies = t_.tile_n * row_chunks / loaders_;  // either layout
    for (int p = 0; p < b_copies; ++p) {
      llvm::Value* q = Chunk(p);
      if (plan_.b.k_contiguous) {
        KMajorChunk(b_at, q, col0_, mm_.n, plan_.b, b_base_, k0);
        continue;
      }
      // 64 k rows, each of tile_n columns: chunk cc of row kr is in column
      // block cc / 8, row kr of it, swizzled chunk cc % 8.
      const int per_row = t_.tile_n / 8;
      llvm::Value* kr = b_.CreateUDiv(q, b_.getInt64(per_row));
      llvm::Value* cc = b_.CreateURem(q, b_.getInt64(per_row));
      llvm::Value* k = b_.CreateAdd(k0, kr);
      llvm::Value* j = b_.CreateAdd(col0_, b_.CreateMul(cc, b_.getInt64(8)));
      llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(j, b_.getInt64(mm_.n)),
                                         b_.CreateICmpULT(k, b_.getInt64(mm_.k)));
      llvm::Value* offset =
          b_.CreateAdd(b_.CreateMul(b_.CreateLShr(cc, 3), b_.getInt64(kMnBlockBytes)),
                       Swizzled(kr, b_.CreateAnd(cc, 7)));
      CopyChunk(b_.CreateAdd(b_at, offset), b_base_,
                b_.CreateAdd(b_.CreateMul(k, b_.getInt64(plan_.b.row_stride)), j), inside);
    }
  }

  void CommitCopies() { Call(llvm::Intrinsic::nvvm_cp_async_commit_group, {}); }
  void WaitCopies(int pending) {
    Call(llvm::Intrinsic::nvvm_cp_async_wait_group, {b_.getInt32(pending)});
  }

  // The copies this thread waited for, made visible to the async proxy.
  void FenceProxy() { Asm("fence.proxy.async.shared::cta;"); }

  // acc plus the products of the stage at byte offset `stage_at`: four k16
  // wgmmas, committed as one group; returns the new accumulators.
  std::vector<llvm::Value*> Multiply(llvm::Value* stage_at, const std::vector<llvm::Value*>& acc) {
    Asm("wgmma.fence.sync.aligned;");
    llvm::Value* stage = b_.CreateAdd(ring_address_, stage_at);
    llvm::Value* a_start =
        b_.CreateAdd(stage, b_.CreateMul(warpgroup_, b_.getInt64(64 * kRowBytes)));  // rows 64g..
    llvm::Value* b_start = b_.CreateAdd(stage, b_.getInt64(t_.a_bytes()));
    const bool mn_major = !plan_.b.k_contiguous;
    const uint64_t a_bits = DescriptorConstant(16, kAtomBytes);
    const uint64_t b_bits = mn_major ? DescriptorConstant(kMnBlockBytes, kAtomBytes)
                                     : DescriptorConstant(16, kAtomBytes);
    std::vector<llvm::Value*> d = acc;
    for (int kk = 0; kk < WgmmaTiling::kTileK / 16; ++kk) {
      // A k16 slice: 32 bytes into each K-major row; 16 k rows (two 8-row
      // groups) into an MN-major tile.
      llvm::Value* a_desc = Descriptor(b_.CreateAdd(a_start, b_.getInt64(kk * 32)), a_bits);
      llvm::Value* b_desc = Descriptor(
          b_.CreateAdd(b_start, b_.getInt64(mn_major ? kk * 2 * kAtomBytes : kk * 32)), b_bits);
      d = Wgmma(a_desc, b_desc, d, mn_major);
    }
    Asm("wgmma.commit_group.sync.aligned;");
    return d;
  }

  // Waits until at most `pending` wgmma groups of this warpgroup are in
  // flight.
  void WaitMultiplies(int pending) {
    Asm(absl::StrCat("wgmma.wait_group.sync.aligned ", pending, ";"));
  }

  // Row and column of accumulator register i (see the file comment).
  llvm::Value* OutputRow(int i) {
    llvm::Value* in_group =
        b_.CreateAdd(b_.CreateMul(warp_, b_.getInt64(16)), b_.CreateLShr(lane_, 2));
    llvm::Value* first =
        b_.CreateAdd(row0_, b_.CreateAdd(b_.CreateMul(warpgroup_, b_.getInt64(64)), in_group));
    return b_.CreateAdd(first, b_.getInt64(((i / 2) % 2) * 8));
  }
  llvm::Value* OutputColumn(int i) {
    llvm::Value* first = b_.CreateAdd(col0_, b_.CreateMul(b_.CreateAnd(lane_, 3), b_.getInt64(2)));
    return b_.CreateAdd(first, b_.getInt64((i / 4) * 8 + i % 2));
  }

  int registers() const { return t_.tile_n / 2; }
  llvm::Value* thread() const { return tid_; }
  llvm::Value* row0() const { return row0_; }
  llvm::Value* col0() const { return col0_; }

  // Inline PTX with side effects: `text` with operands `args` (constraints
  // `constraints`, "r" for i32), returning an i32 when `returns`.
  llvm::Value* Asm(const std::string& text, llvm::ArrayRef<llvm::Value*> args = {},
                   std::string constraints = "", bool returns = false) {
    std::vector<llvm::Type*> types;
    for (llvm::Value* a : args) types.push_back(a->getType());
    auto* type = llvm::FunctionType::get(returns ? b_.getInt32Ty() : b_.getVoidTy(), types, false);
    absl::StrAppend(&constraints, constraints.empty() ? "" : ",", "~{memory}");
    return b_.CreateCall(llvm::InlineAsm::get(type, text, constraints, /*hasSideEffects=*/true),
                         args);
  }

 private:
  llvm::Value* Chunk(int p) { return b_.CreateAdd(loader_, b_.getInt64(p * loaders_)); }

  // Byte offset of chunk `chunk` of swizzled row `row` in a tile.
  llvm::Value* Swizzled(llvm::Value* row, llvm::Value* chunk) {
    return b_.CreateAdd(
        b_.CreateMul(row, b_.getInt64(kRowBytes)),
        b_.CreateMul(b_.CreateXor(chunk, b_.CreateAnd(row, 7)), b_.getInt64(kMmaChunkBytes)));
  }

  // Chunk q of a K-major tile at byte `at`: row q/8 (counted from `first`,
  // of `extent`), k chunk q%8.
  void KMajorChunk(llvm::Value* at, llvm::Value* q, llvm::Value* first, int64_t extent,
                   const MmaOperand& op, llvm::Value* base, llvm::Value* k0) {
    llvm::Value* r = b_.CreateLShr(q, 3);
    llvm::Value* c = b_.CreateAnd(q, 7);
    llvm::Value* outer = b_.CreateAdd(first, r);
    llvm::Value* k = b_.CreateAdd(k0, b_.CreateMul(c, b_.getInt64(8)));
    llvm::Value* inside = b_.CreateAnd(b_.CreateICmpULT(outer, b_.getInt64(extent)),
                                       b_.CreateICmpULT(k, b_.getInt64(mm_.k)));
    CopyChunk(b_.CreateAdd(at, Swizzled(r, c)), base,
              b_.CreateAdd(b_.CreateMul(outer, b_.getInt64(op.row_stride)), k), inside);
  }

  // One 16-byte copy to ring byte `offset`; zero-filled where `inside` is
  // false (the source address stays the base).
  void CopyChunk(llvm::Value* offset, llvm::Value* base, llvm::Value* element,
                 llvm::Value* inside) {
    llvm::Value* dst = b_.CreateInBoundsGEP(b_.getInt8Ty(), ring_, offset);
    llvm::Value* src =
        b_.CreateGEP(b_.getInt16Ty(), base, b_.CreateSelect(inside, element, b_.getInt64(0)));
    Call(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s,
         {dst, src, b_.CreateSelect(inside, b_.getInt32(16), b_.getInt32(0))});
  }

  llvm::Value* Descriptor(llvm::Value* address, uint64_t bits) {
    llvm::Value* start = b_.CreateLShr(b_.CreateAnd(address, 0x3FFFF), 4);
    return b_.CreateOr(start, b_.getInt64(bits));
  }

  // One wgmma.mma_async.m64nNk16 accumulating into `acc` (N/2 f32 each
  // tied to its output).
  std::vector<llvm::Value*> Wgmma(llvm::Value* a_desc, llvm::Value* b_desc,
                                  const std::vector<llvm::Value*>& acc, bool mn_major) {
    const int n = registers();
    const char* type = plan_.dtype == DType::kBF16 ? "bf16" : "f16";
    std::string text = absl::StrCat("wgmma.mma_async.sync.aligned.m64n", t_.tile_n, "k16.f32.",
                                    type, ".", type, " {");
    std::string constraints;
    for (int i = 0; i < n; ++i) {
      absl::StrAppend(&text, i ? ", " : "", "$", i);
      absl::StrAppend(&constraints, i ? "," : "", "=f");
    }
    // scale-d = 1 (accumulate), imm-scale-a/b = 1, imm-trans-a = 0.
    absl::StrAppend(&text, "}, $", n, ", $", n + 1, ", $", n + 2, ", 1, 1, 0, ", mn_major ? 1 : 0,
                    ";");
    absl::StrAppend(&constraints, ",l,l,b");
    for (int i = 0; i < n; ++i) absl::StrAppend(&constraints, ",", i);
    absl::StrAppend(&constraints, ",~{memory}");
    std::vector<llvm::Type*> outs(n, b_.getFloatTy());
    std::vector<llvm::Type*> ins = {b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt1Ty()};
    ins.insert(ins.end(), n, b_.getFloatTy());
    auto* type_of =
        llvm::FunctionType::get(llvm::StructType::get(b_.getContext(), outs), ins, false);
    std::vector<llvm::Value*> args = {a_desc, b_desc, b_.getTrue()};
    args.insert(args.end(), acc.begin(), acc.end());
    llvm::Value* result = b_.CreateCall(
        llvm::InlineAsm::get(type_of, text, constraints, /*hasSideEffects=*/true), args);
    std::vector<llvm::Value*> d(n);
    for (int i = 0; i < n; ++i) d[i] = b_.CreateExtractValue(result, i);
    return d;
  }

  void Call(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
    b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, id), args);
  }

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
  const WgmmaTiling& t_;
  const MatmulPattern& mm_;
  const MmaPlan& plan_;
  llvm::Value *row0_ = nullptr, *col0_ = nullptr, *tid_ = nullptr, *lane_ = nullptr;
  llvm::Value* loader_ = nullptr;  // the thread's index among the copying threads
  int loaders_ = 0;
  llvm::Value *warp_ = nullptr, *warpgroup_ = nullptr;
  llvm::Value *a_base_ = nullptr, *b_base_ = nullptr, *ring_ = nullptr, *ring_address_ = nullptr;
};

}  // namespace

int NvptxKernel::WgmmaTensorMaps() const {
  if (shape_->form != KernelForm::kMatmul || !options_.tensor_cores || !options_.wgmma ||
      shape_->matmul.batch != 1 || !shape_->matmul.batch_loops.empty()) {
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
    // (after 2^22 tries: tens of milliseconds at least, where a stage's wait
    // takes microseconds).
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
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\n"
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
