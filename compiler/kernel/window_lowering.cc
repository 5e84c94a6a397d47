// conv2d, max_pool2d and avg_pool2d in kernel IR (lowering.h): each roots its
// own group (its operands fuse only cheap layout ops, as matmul's do) and
// becomes a reduction per output element. Loops over the output [N, C|O,
// Ho, Wo]; per element, an accumulator runs over the window's taps (conv2d:
// its group's input channels, then kernel rows and columns; the pools: kernel
// rows and columns; loops of extent 1 dropped), then one store.
//
// A tap's input position along an axis is o * stride + t * dilation in
// padded coordinates (never negative, so plain index arithmetic). Only the
// sides where some window reaches padding are checked: the tap is valid when
// the position lies in [before, before + size); the position read is then
// position - before, clamped to 0 for an invalid tap, so no load leaves the
// input, and the tap's value is selected to the padding value: 0 for conv2d
// (the product is selected, so a padded tap adds exactly nothing) and
// avg_pool2d, -inf for max_pool2d.
//
// Accumulation: conv2d and avg_pool2d as matmul and reduce_mean (f64 for
// float dtypes, f32 under fast_math or low_precision), max_pool2d as
// reduce_max (its dtype, f32 for f16/bf16), in window order (fast_math:
// reassociated). avg_pool2d divides by kH * kW, or without count_include_pad
// by the real taps per axis, min(o * s + k, before + size) - max(o * s,
// before), when a window can reach padding (0 / 0 = NaN when none is real).
//
// Tested by compiler/kernel/kernel_builder_test.cc and end to end by
// compiler/driver/compile_ops_test.cc.
#include <limits>

#include "compiler/ir/window.h"
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {

KernelLowering::Tap KernelLowering::WindowTap(const Window2d& window, int axis, int64_t size,
                                              int32_t out, int32_t tap) {
  const int64_t before = window.pad_before[axis];
  const int32_t position = Add(Mul(out, window.stride[axis]), Mul(tap, window.dilation[axis]));
  Tap result{position, -1};
  int32_t low = -1;
  int32_t high = -1;
  if (window.ReadsPaddingBefore(axis)) low = OpExpr(Op::kGe, DType::kBool, position, IConst(before));
  if (window.ReadsPaddingAfter(axis, size)) {
    high = OpExpr(Op::kLt, DType::kBool, position, IConst(before + size));
  }
  if (low < 0 && high < 0) return result;  // no padding reached: before is 0
  result.valid = low < 0 ? high : high < 0 ? low : OpExpr(Op::kAnd, DType::kBool, low, high);
  const int32_t shifted =
      before == 0 ? position : OpExpr(Op::kSub, DType::kI64, position, IConst(before));
  result.index = OpExpr(Op::kWhere, DType::kI64, result.valid, shifted, IConst(0));
  return result;
}

int32_t KernelLowering::RealTaps(const Window2d& window, int axis, int64_t size, int32_t out) {
  const int64_t before = window.pad_before[axis];
  if (!window.ReadsPaddingBefore(axis) && !window.ReadsPaddingAfter(axis, size)) {
    return IConst(window.kernel[axis]);
  }
  // avg_pool2d has no dilation: the taps are [start, start + kernel).
  const int32_t start = Mul(out, window.stride[axis]);
  const int32_t first = OpExpr(Op::kMaximum, DType::kI64, start, IConst(before));
  const int32_t end = OpExpr(Op::kMinimum, DType::kI64, Add(start, IConst(window.kernel[axis])),
                             IConst(before + size));
  return OpExpr(Op::kMaximum, DType::kI64, OpExpr(Op::kSub, DType::kI64, end, first), IConst(0));
}

absl::Status KernelLowering::LowerWindow(const fusion::FusionGroup& group) {
  const Node& node = graph_.node(group.root);
  const bool conv = node.op == Op::kConv2d;
  const bool max = node.op == Op::kMaxPool2d;
  const NodeId x = node.operands[0];
  const Shape& in = graph_.type(x).shape;
  const Shape weights = conv ? graph_.type(node.operands[1]).shape : Shape();
  const Window2d window = ReadWindow(node.op, node.attrs, weights);
  const Shape& out = node.type.shape;
  const DType dtype = node.type.dtype;
  const DType acc_dtype = AccumulatorType(max ? Op::kReduceMax : node.op, dtype);
  const int32_t buffer = buffer_of_[group.root.value];
  const int64_t group_in = conv ? weights.dim(1) : 1;
  const int64_t group_out = conv ? out.dim(1) / window.groups : 1;
  const double pad_value = max ? -std::numeric_limits<double>::infinity() : 0.0;
  // An empty input (H or W of 0 with padding) has nothing to read: every tap
  // is padding.
  const bool empty = in.num_elements() == 0;

  Index vars(out.rank());
  kernel_.body = LoopNest(out, 0, vars, [&](const Index& v) {
    const int32_t acc = static_cast<int32_t>(kernel_.accumulators.size());
    kernel_.accumulators.push_back(acc_dtype);
    Stmt init;
    init.kind = StmtKind::kAccInit;
    init.acc = acc;
    init.value = Const(acc_dtype, pad_value);
    std::vector<std::pair<int32_t, int64_t>> loops;  // (var, extent), outermost first
    auto loop_var = [&](int64_t extent) {
      if (extent == 1) return IConst(0);
      const int32_t var = NewVar();
      loops.emplace_back(var, extent);
      return Var(var);
    };
    const int32_t channel_tap = conv ? loop_var(group_in) : IConst(0);
    const int32_t row_tap = loop_var(window.kernel[0]);
    const int32_t col_tap = loop_var(window.kernel[1]);

    int32_t value = Const(acc_dtype, pad_value);
    if (!empty) {
      const Tap row = WindowTap(window, 0, in.dim(2), v[2], row_tap);
      const Tap col = WindowTap(window, 1, in.dim(3), v[3], col_tap);
      int32_t channel = v[1];
      if (conv) {
        // The first input channel of output channel v[1]'s group, plus the tap.
        channel = window.groups == 1
                      ? channel_tap
                      : Add(Mul(IndexOpExpr(IndexOp::kDiv, v[1], IConst(group_out)), group_in),
                            channel_tap);
      }
      value = Cast(Eval(x, {v[0], channel, row.index, col.index}), acc_dtype);
      if (conv) {
        const int32_t w = Eval(node.operands[1], {v[1], channel_tap, row_tap, col_tap});
        value = OpExpr(Op::kMul, acc_dtype, value, Cast(w, acc_dtype));
      }
      const int32_t valid = row.valid < 0   ? col.valid
                            : col.valid < 0 ? row.valid
                                            : OpExpr(Op::kAnd, DType::kBool, row.valid, col.valid);
      if (valid >= 0) value = OpExpr(Op::kWhere, acc_dtype, valid, value, Const(acc_dtype, pad_value));
    }
    Stmt update;
    update.kind = StmtKind::kAccUpdate;
    update.acc = acc;
    update.combine = max ? Op::kMaximum : Op::kAdd;
    update.order = options_.fast_math ? AccumulationOrder::kReassociated
                                      : AccumulationOrder::kSequential;
    update.value = value;
    std::vector<Stmt> nest = {update};
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      std::vector<Stmt> wrapped;
      wrapped.push_back(Loop(it->first, it->second, std::move(nest)));
      nest = std::move(wrapped);
    }

    int32_t result = AccRead(acc);
    if (node.op == Op::kAvgPool2d) {
      int32_t count = IConst(window.kernel[0] * window.kernel[1]);
      if (!window.count_include_pad) {
        count = OpExpr(Op::kMul, DType::kI64, RealTaps(window, 0, in.dim(2), v[2]),
                       RealTaps(window, 1, in.dim(3), v[3]));
      }
      result = OpExpr(Op::kDiv, acc_dtype, result, Cast(count, acc_dtype));
    }
    result = ApplyValueFaults(node.op, dtype, Cast(result, dtype));
    std::vector<Stmt> body = {init};
    for (Stmt& s : nest) body.push_back(std::move(s));
    body.push_back(Store(buffer, Linear(buffer, v), result));
    return body;
  });
  MarkParallel(out.num_elements() * group_in * window.kernel[0] * window.kernel[1]);
  return error_;
}

}  // namespace rk::compiler::kernel
