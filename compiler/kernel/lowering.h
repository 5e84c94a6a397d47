// Internal to compiler/kernel: builds the expressions and statements of one
// kernel. Used by kernel_builder.cc and group_lowering.cc only.
#ifndef REPROKIT_COMPILER_KERNEL_LOWERING_H_
#define REPROKIT_COMPILER_KERNEL_LOWERING_H_

#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/fusion/fusion.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/window.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::kernel {

using Index = std::vector<int32_t>;  // one expr id per dim

// Matmul rows of accumulators up to this many elements live on the stack.
inline constexpr int64_t kMaxLocalRowForMatmul = 16384;

class KernelLowering {
 public:
  KernelLowering(const Graph& graph, const fusion::FusionPlan& plan,
                 const std::vector<int32_t>& buffer_of, Program& program,
                 const KernelOptions& options, Kernel& kernel)
      : graph_(graph), plan_(plan), buffer_of_(buffer_of), program_(program),
        options_(options), kernel_(kernel) {}

  // Fills kernel_.body for `group`.
  absl::Status LowerGroup(const fusion::FusionGroup& group);

 private:
  // Expressions (hash-consed, constant-folded for index arithmetic).
  int32_t Intern(const Expr& e);
  int32_t IConst(int64_t v);
  int32_t Const(DType dtype, double value);
  int32_t Var(int32_t var);
  int32_t IndexOpExpr(IndexOp op, int32_t a, int32_t b);
  int32_t Add(int32_t a, int32_t b) { return IndexOpExpr(IndexOp::kAdd, a, b); }
  int32_t Mul(int32_t a, int64_t c) { return IndexOpExpr(IndexOp::kMul, a, IConst(c)); }
  int32_t OpExpr(Op op, DType dtype, int32_t a, int32_t b = -1, int32_t c = -1);
  int32_t Cast(int32_t a, DType dtype);
  int32_t Load(int32_t buffer, int32_t flat);
  int32_t AccRead(int32_t acc);
  int32_t Linear(int32_t buffer, const Index& index);
  int32_t NewVar() { return kernel_.num_vars++; }
  bool IsConst(int32_t e, int64_t v) const;

  // Node values at an index of the node's shape.
  int32_t Eval(NodeId id, const Index& index);
  int32_t EvalUncached(NodeId id, const Index& index);
  int32_t EvalLayout(NodeId id, const Index& index);
  int32_t EvalGather(NodeId id, const Index& index);
  int32_t EvalPad(NodeId id, const Index& index);
  Index BroadcastIndex(const Shape& from, const Shape& to, const Index& index);
  int32_t ApplyValueFaults(Op op, DType dtype, int32_t value);

  // Statements.
  Stmt Loop(int32_t var, int64_t extent, std::vector<Stmt> body);
  Stmt Store(int32_t buffer, int32_t index, int32_t value);
  // Loops over `shape`, innermost body from `inner(vars)`.
  std::vector<Stmt> LoopNest(const Shape& shape, int first_dim, Index& vars,
                             const std::function<std::vector<Stmt>(const Index&)>& inner);
  // Appends the statements computing reduction `id` at output index `out_index`
  // and returns the expression for its value.
  int32_t LowerReduction(NodeId id, const Index& out_index, std::vector<Stmt>& out);
  DType AccumulatorType(Op op, DType dtype) const;
  // Replaces the loops over reduced axes by one loop over their flattened
  // extent, rewriting the reduced indices in `in_index` (tree order).
  void FlattenReductionLoops(std::vector<std::pair<int32_t, int64_t>>& loops, Index& in_index);

  absl::Status LowerElementwise(const fusion::FusionGroup& group);
  absl::Status LowerFusedReduction(const fusion::FusionGroup& group);
  absl::Status LowerReductionRoot(const fusion::FusionGroup& group);
  absl::Status LowerMatmul(const fusion::FusionGroup& group);
  absl::Status LowerMatmulTiled(const fusion::FusionGroup& group);
  absl::Status LowerConcat(const fusion::FusionGroup& group);
  // conv2d and the pools (window_lowering.cc).
  absl::Status LowerWindow(const fusion::FusionGroup& group);
  // A window tap along one axis: the input index to read (clamped to 0 when
  // the tap is padding) and whether it is real (-1: always).
  struct Tap {
    int32_t index;
    int32_t valid;
  };
  Tap WindowTap(const Window2d& window, int axis, int64_t size, int32_t out, int32_t tap);
  // avg_pool2d: the real taps of output position `out` along `axis` (i64).
  int32_t RealTaps(const Window2d& window, int axis, int64_t size, int32_t out);
  absl::Status LowerScan(const fusion::FusionGroup& group);
  void MarkParallel(int64_t work);

  const Graph& graph_;
  const fusion::FusionPlan& plan_;
  const std::vector<int32_t>& buffer_of_;
  Program& program_;
  const KernelOptions& options_;
  Kernel& kernel_;
  NodeId root_;
  NodeId reduction_;
  int32_t reduction_value_ = -1;
  absl::Status error_;
  std::map<std::tuple<int, int, int, int, int32_t, int32_t, int32_t, int64_t, int64_t, int32_t,
                      int32_t, int32_t>,
           int32_t>
      interned_;
  std::map<std::pair<int32_t, Index>, int32_t> memo_;
};

}  // namespace rk::compiler::kernel

#endif  // REPROKIT_COMPILER_KERNEL_LOWERING_H_
