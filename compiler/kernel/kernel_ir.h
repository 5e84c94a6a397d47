// Kernel IR: target-neutral loop nests, one kernel per fusion group.
//
// A Program owns buffers (graph inputs, constants, outputs, temporaries in one
// arena, kernel-local scratch arrays) and kernels that run in order. A kernel
// is a statement tree of counted loops, stores, and reduction accumulators;
// values are expression trees over loop variables, loads and graph ops. Every
// index is explicit: a load names a buffer and a flat element offset built from
// loop variables with add/mul/div/mod by constants, so broadcasting, strides,
// transposes, slices and reshapes are all just index arithmetic. Expressions
// carry the graph dtype; a backend picks the compute type (e.g. f16 computed in
// f32). Nothing here knows LLVM: the x86 and NVPTX backends lower the same IR.
//
// Tested by compiler/kernel/kernel_builder_test.cc (printer and structure).
#ifndef REPROKIT_COMPILER_KERNEL_KERNEL_IR_H_
#define REPROKIT_COMPILER_KERNEL_KERNEL_IR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler::kernel {

enum class BufferRole : uint8_t { kInput, kConstant, kOutput, kTemp, kLocal };

struct Buffer {
  BufferRole role = BufferRole::kTemp;
  TensorType type;
  std::vector<int64_t> strides;  // elements, row-major for every materialized buffer
  int external_index = -1;       // graph input / output / constant index
  int64_t arena_offset = 0;      // bytes, kTemp only (shared by buffer planning)
  std::string name;              // the graph node it holds, e.g. "%41"
};

enum class ExprKind : uint8_t {
  kConst,       // int_value (integers, bool, index) or float_value
  kLoopVar,     // var
  kLoad,        // buffer, a = flat element index
  kAccRead,     // acc (value of an accumulator)
  kOp,          // graph op (unary, binary, compare, logic, select) on a, b, c
  kCast,        // a converted to dtype with the tensor.h conversion rules
  kIndex,       // index arithmetic index_op on a, b
  kRunCounter,  // a per-run counter (i64), for the nondeterminism fault
};

// Index arithmetic on non-negative i64 values (div and mod by positive constants).
enum class IndexOp : uint8_t { kAdd, kMul, kDiv, kMod };

// Index expressions have dtype kI64.
struct Expr {
  ExprKind kind = ExprKind::kConst;
  DType dtype = DType::kF32;
  Op op = Op::kAdd;
  IndexOp index_op = IndexOp::kAdd;
  int32_t a = -1, b = -1, c = -1;
  int64_t int_value = 0;
  double float_value = 0;
  int32_t buffer = -1;
  int32_t var = -1;
  int32_t acc = -1;
};

// How a reduction combines elements.
enum class AccumulationOrder : uint8_t {
  kSequential,    // left to right in the accumulator's dtype
  kReassociated,  // any order (fast_math): vectorized partial sums
  // Pairwise (float sums only; the update is the only statement of a single
  // loop over all reduced elements): blocks of kTreeBlockSize consecutive
  // elements are summed left to right, then the block sums are added as a
  // binary tree, each pair (earlier + later). Rounding error grows with
  // kTreeBlockSize + log2(n / kTreeBlockSize) instead of n.
  kTree,
};

inline constexpr int64_t kTreeBlockSize = 16;

enum class StmtKind : uint8_t {
  kLoop,          // for var in [0, extent): body
  kStore,         // buffer[index] = value
  kAccInit,       // acc = value
  kAccUpdate,     // acc = combine(acc, value)
  kArgmaxUpdate,  // (acc value, acc+1 index) updated with value at position index
  kNullLoad,      // reads through a null pointer (the runtime_crash fault)
};

struct Stmt {
  StmtKind kind = StmtKind::kLoop;
  int32_t var = -1;
  int64_t extent = 0;
  bool parallel = false;   // iterations are independent and may run on threads
  std::vector<Stmt> body;  // kLoop
  int32_t buffer = -1;
  int32_t index = -1;  // expr ids
  int32_t value = -1;
  int32_t acc = -1;
  Op combine = Op::kAdd;  // kAdd, kMul, kMaximum, kMinimum
  AccumulationOrder order = AccumulationOrder::kSequential;
};

struct Kernel {
  std::string name;    // "k3"
  std::string detail;  // the fusion group, e.g. "%41 (reduce_sum) + epilogue %42 (div)"
  std::vector<Expr> exprs;
  std::vector<DType> accumulators;
  int num_vars = 0;
  std::vector<int32_t> locals;  // kLocal buffers this kernel allocates
  std::vector<Stmt> body;
  // Buffers the kernel reads and writes (sorted, unique).
  std::vector<int32_t> reads;
  std::vector<int32_t> writes;
};

struct Program {
  std::vector<Buffer> buffers;
  std::vector<Kernel> kernels;
  std::vector<HostTensor> constants;  // by Buffer::external_index
  int64_t arena_bytes = 0;
  int num_inputs = 0;
  // Per graph output: the buffer holding it.
  std::vector<int32_t> outputs;
  int num_output_buffers = 0;
};

// Readable text for dumps, stable across runs.
std::string PrintKernel(const Program& program, const Kernel& kernel);
std::string PrintProgram(const Program& program);

}  // namespace rk::compiler::kernel

#endif  // REPROKIT_COMPILER_KERNEL_KERNEL_IR_H_
