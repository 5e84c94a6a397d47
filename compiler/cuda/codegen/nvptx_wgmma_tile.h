// Internal to compiler/cuda/codegen: one block's tile of the Hopper matmul
// form (nvptx_wgmma_matmul.cc, whose file comment states the PTX facts the
// layouts and descriptors rely on): placement of the block and its threads,
// cp.async copies into the 128-byte-swizzled shared layouts, matrix
// descriptors, wgmma inline PTX, and which output each accumulator register
// holds. Emits IR only; the k loop and the epilogue are the emitter's.
//
// Tested through compiler/cuda/codegen/ptx_wgmma_matmul_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_WGMMA_TILE_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_WGMMA_TILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/planning/kernel_shape.h"
#include "compiler/cuda/planning/mma_matmul.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

namespace rk::compiler::cuda::wgmma {

inline constexpr int kGroupRows = 8;     // tile rows a group of blocks walks
inline constexpr int kRowBytes = 128;    // a swizzled row: 64 f16/bf16
inline constexpr int kAtomBytes = 1024;  // 8 rows: the swizzle pattern's period
inline constexpr int kMnBlockBytes = WgmmaTiling::kTileK * kRowBytes;  // 64 columns x 64 k

// Descriptor bits other than the start address.
inline uint64_t DescriptorConstant(uint64_t leading, uint64_t stride) {
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

}  // namespace rk::compiler::cuda::wgmma

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_NVPTX_WGMMA_TILE_H_
