// The two passes of a split row reduction (split_rows.h): pass 1 reduces a
// chunk of a row a block and stores the block's accumulator to the scratch
// buffer; pass 2 combines a row's partials in a fixed order and runs the
// epilogue, its loops split over the row's pass-2 blocks.
//
// Tested by compiler/cuda/codegen/ptx_compiler_test.cc and, on a GPU,
// compiler/tests/cuda_program_test.cc.
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace rk::compiler::cuda {

using kernel::Stmt;
using kernel::StmtKind;

namespace {
// Chunk loops are unrolled this many times: four 16-byte loads in flight a
// thread instead of one (a thread's points stay in order, so results do not
// change).
constexpr int kStreamUnroll = 4;
}  // namespace

void NvptxKernel::EmitSplit(const SplitRows& plan, KernelLaunch& partials,
                            KernelLaunch& combine) {
  EmitRowPartials(plan, partials);
  b_.CreateRetVoid();
  EmitRowCombine(plan, combine);
  b_.CreateRetVoid();
}

void NvptxKernel::ChunkStridedChain(const LoopChain& chain, llvm::Value* lo, llvm::Value* hi) {
  const int64_t inner = chain.loops.empty() ? 1 : chain.loops.back()->extent;
  const int width = VectorWidth(chain.points, inner);
  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  // Chunk bounds are multiples of kChunkAlign or the chain's end, and the
  // width divides both: whole vectors, none across an innermost row.
  llvm::Value* first = b_.CreateAdd(b_.CreateUDiv(lo, b_.getInt64(width)), tid);
  llvm::Value* end = b_.CreateUDiv(hi, b_.getInt64(width));
  ForLoop(
      first, end, b_.getInt64(threads_),
      [&](llvm::Value* q) {
        VectorPoints(chain, b_.CreateMul(q, b_.getInt64(width), "", true, true), width);
      },
      kStreamUnroll);
}

llvm::Value* NvptxKernel::ScratchSlot(llvm::Value* slot, int64_t offset) {
  llvm::Value* bytes = b_.CreateAdd(b_.CreateMul(slot, b_.getInt64(kPartialSlotBytes)),
                                    b_.getInt64(offset));
  return b_.CreateInBoundsGEP(b_.getInt8Ty(), scratch_, bytes);
}

void NvptxKernel::CombineIntoAccumulator(const Stmt& update, llvm::Value* other_value,
                                         llvm::Value* other_index) {
  const DType dtype = kernel_->accumulators[update.acc];
  llvm::Value* v = b_.CreateLoad(values_->ComputeType(dtype), values_->accs[update.acc]);
  if (update.kind == StmtKind::kArgmaxUpdate) {
    llvm::Value* idx = b_.CreateLoad(b_.getInt64Ty(), values_->accs[update.acc + 1]);
    v = CombineArgmax(dtype, v, idx, other_value, other_index, &idx);
    b_.CreateStore(idx, values_->accs[update.acc + 1]);
  } else {
    v = values_->Combine(update.combine, dtype, v, other_value, false);
  }
  b_.CreateStore(v, values_->accs[update.acc]);
}

// Pass 1: block (c, r) reduces chunk c of row r like the one-pass block and
// stores the result in slot r * C + c.
void NvptxKernel::EmitRowPartials(const SplitRows& plan, KernelLaunch& launch) {
  Begin(launch, "_partials", /*scratch=*/true);
  threads_ = kPartialThreads;
  launch.form = KernelForm::kRowPartials;
  launch.block = {static_cast<uint32_t>(threads_), 1, 1};
  launch.grid = {static_cast<uint32_t>(plan.chunks), static_cast<uint32_t>(plan.rows), 1};
  launch.scratch_bytes = plan.scratch_bytes();
  Annotate(module_, fn_, "maxntidx", threads_);
  const RowReduction& row = shape_->row;
  const Stmt& update = *row.reduce.body[0];
  llvm::Value* chunk = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* r = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  SetChainVars(shape_->phases[0], r);
  EmitStmts(row.inits);
  llvm::Value* lo = b_.CreateMul(chunk, b_.getInt64(plan.chunk_points), "", true, true);
  llvm::Value* hi = b_.CreateBinaryIntrinsic(
      llvm::Intrinsic::umin, b_.CreateAdd(lo, b_.getInt64(plan.chunk_points)),
      b_.getInt64(plan.points));
  ChunkStridedChain(row.reduce, lo, hi);
  BlockCombine(update);
  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* slot = b_.CreateAdd(b_.CreateMul(r, b_.getInt64(plan.chunks)), chunk);
  If(b_.CreateICmpEQ(tid, b_.getInt64(0)), [&] {
    const DType dtype = kernel_->accumulators[update.acc];
    b_.CreateStore(b_.CreateLoad(values_->ComputeType(dtype), values_->accs[update.acc]),
                   ScratchSlot(slot, 0));
    if (plan.argmax) {
      b_.CreateStore(b_.CreateLoad(b_.getInt64Ty(), values_->accs[update.acc + 1]),
                     ScratchSlot(slot, plan.index_offset()));
    }
  });
}

// Pass 2: every block of row r combines the row's partials in the same fixed
// order, then takes its share of the epilogue.
void NvptxKernel::EmitRowCombine(const SplitRows& plan, KernelLaunch& launch) {
  Begin(launch, "_combine", /*scratch=*/true);
  threads_ = kCombineThreads;
  launch.form = KernelForm::kRowCombine;
  launch.block = {static_cast<uint32_t>(threads_), 1, 1};
  launch.grid = {static_cast<uint32_t>(plan.epilogue_chunks), static_cast<uint32_t>(plan.rows),
                 1};
  launch.scratch_bytes = plan.scratch_bytes();
  Annotate(module_, fn_, "maxntidx", threads_);
  const RowReduction& row = shape_->row;
  const Stmt& update = *row.reduce.body[0];
  llvm::Value* part = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* r = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  llvm::Value* tid = Special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  SetChainVars(shape_->phases[0], r);
  EmitStmts(row.inits);
  llvm::Value* row_slot = b_.CreateMul(r, b_.getInt64(plan.chunks));
  llvm::Type* t = values_->ComputeType(kernel_->accumulators[update.acc]);
  ForLoop(tid, b_.getInt64(plan.chunks), b_.getInt64(threads_), [&](llvm::Value* c) {
    llvm::Value* slot = b_.CreateAdd(row_slot, c);
    llvm::Value* value = b_.CreateLoad(t, ScratchSlot(slot, 0));
    llvm::Value* index = plan.argmax ? b_.CreateLoad(b_.getInt64Ty(),
                                                     ScratchSlot(slot, plan.index_offset()))
                                     : nullptr;
    CombineIntoAccumulator(update, value, index);
  });
  BlockCombine(update);
  for (const Stmt* st : row.rest) {
    if (st->kind == StmtKind::kLoop) {
      const LoopChain chain = PeelChain({st});
      const int64_t length = ChunkLength(chain.points, plan.epilogue_chunks);
      llvm::Value* lo = b_.CreateMul(part, b_.getInt64(length), "", true, true);
      llvm::Value* hi = b_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b_.CreateAdd(lo, b_.getInt64(length)),
          b_.getInt64(chain.points));
      ChunkStridedChain(chain, lo, hi);
    } else {
      llvm::Value* first = b_.CreateOr(part, tid);
      If(b_.CreateICmpEQ(first, b_.getInt64(0)), [&] { EmitStmt(*st); });
    }
  }
}

}  // namespace rk::compiler::cuda
