// Statement structure of each kind of fusion group (lowering.h).
#include <algorithm>
#include <limits>

#include "compiler/ir/shape_inference.h"
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {
namespace {

// Kernels with less work than this stay on one thread.
constexpr int64_t kMinParallelWork = 1 << 14;

}  // namespace

Stmt KernelLowering::Loop(int32_t var, int64_t extent, std::vector<Stmt> body) {
  Stmt s;
  s.kind = StmtKind::kLoop;
  s.var = var;
  s.extent = extent;
  s.body = std::move(body);
  return s;
}

Stmt KernelLowering::Store(int32_t buffer, int32_t index, int32_t value) {
  Stmt s;
  s.kind = StmtKind::kStore;
  s.buffer = buffer;
  s.index = index;
  s.value = Cast(value, program_.buffers[buffer].type.dtype);
  return s;
}

std::vector<Stmt> KernelLowering::LoopNest(
    const Shape& shape, int first_dim, Index& vars,
    const std::function<std::vector<Stmt>(const Index&)>& inner) {
  const int rank = shape.rank();
  std::vector<int32_t> loop_vars;
  for (int k = first_dim; k < rank; ++k) {
    if (shape.dim(k) == 1) {
      vars[k] = IConst(0);
      loop_vars.push_back(-1);
    } else {
      const int32_t v = NewVar();
      vars[k] = Var(v);
      loop_vars.push_back(v);
    }
  }
  std::vector<Stmt> body = inner(vars);
  for (int k = rank - 1; k >= first_dim; --k) {
    const int32_t v = loop_vars[k - first_dim];
    if (v < 0) continue;
    std::vector<Stmt> wrapped;
    wrapped.push_back(Loop(v, shape.dim(k), std::move(body)));
    body = std::move(wrapped);
  }
  return body;
}

DType KernelLowering::AccumulatorType(Op op, DType dtype) const {
  if (!IsFloat(dtype)) return dtype;
  if (dtype == DType::kF64) return DType::kF64;
  const bool sum = op == Op::kReduceSum || op == Op::kReduceMean || op == Op::kMatmul ||
                   op == Op::kConv2d || op == Op::kAvgPool2d || op == Op::kCumsum;
  if (sum && !options_.fast_math && !options_.low_precision) return DType::kF64;
  return DType::kF32;
}

int32_t KernelLowering::LowerReduction(NodeId id, const Index& out_index, std::vector<Stmt>& out) {
  const Node& node = graph_.node(id);
  const NodeId x = node.operands[0];
  const Shape& in = graph_.type(x).shape;
  const bool keepdim = node.attrs.GetBool("keepdim").value_or(false);
  const std::vector<int> axes = ReducedAxes(node.op, node.attrs, in.rank());
  const DType in_dtype = graph_.type(x).dtype;
  const DType acc_dtype = AccumulatorType(node.op, in_dtype);
  const bool is_max = node.op == Op::kReduceMax || node.op == Op::kArgmax;
  const int32_t acc = static_cast<int32_t>(kernel_.accumulators.size());
  kernel_.accumulators.push_back(acc_dtype);
  if (node.op == Op::kArgmax) kernel_.accumulators.push_back(DType::kI64);

  double init = 0;
  if (is_max || node.op == Op::kReduceMin) {
    const double inf = std::numeric_limits<double>::infinity();
    if (IsFloat(acc_dtype)) {
      init = is_max ? -inf : inf;
    } else {
      const bool i32 = acc_dtype == DType::kI32;
      init = is_max ? (i32 ? -2147483648.0 : -9223372036854775808.0)
                    : (i32 ? 2147483647.0 : 9223372036854775807.0);
    }
  }
  Stmt init_stmt;
  init_stmt.kind = StmtKind::kAccInit;
  init_stmt.acc = acc;
  init_stmt.value = Const(acc_dtype, init);
  if (!IsFloat(acc_dtype) && init != 0) {
    Expr e;
    e.kind = ExprKind::kConst;
    e.dtype = acc_dtype;
    e.int_value = is_max ? (acc_dtype == DType::kI32 ? std::numeric_limits<int32_t>::min()
                                                     : std::numeric_limits<int64_t>::min())
                         : (acc_dtype == DType::kI32 ? std::numeric_limits<int32_t>::max()
                                                     : std::numeric_limits<int64_t>::max());
    init_stmt.value = Intern(e);
  }
  out.push_back(init_stmt);
  if (node.op == Op::kArgmax) {
    Stmt idx_init;
    idx_init.kind = StmtKind::kAccInit;
    idx_init.acc = acc + 1;
    idx_init.value = IConst(0);
    out.push_back(idx_init);
  }

  // The operand index: reduced axes from new loop vars, kept ones from out_index.
  Index in_index(in.rank());
  std::vector<std::pair<int32_t, int64_t>> loops;  // (var, extent), outermost first
  int kept = 0;
  for (int k = 0; k < in.rank(); ++k) {
    if (std::binary_search(axes.begin(), axes.end(), k)) {
      const int32_t v = NewVar();
      in_index[k] = Var(v);
      loops.emplace_back(v, in.dim(k));
      if (keepdim) ++kept;
    } else {
      in_index[k] = out_index[kept++];
    }
  }
  if (node.op == Op::kReduceSum && !loops.empty() && options_.faults != nullptr &&
      options_.faults->Has(Op::kReduceSum, FaultKind::kDropLast)) {
    loops.back().second = std::max<int64_t>(loops.back().second - 1, 0);
  }
  Stmt update;
  update.acc = acc;
  update.kind = node.op == Op::kArgmax ? StmtKind::kArgmaxUpdate : StmtKind::kAccUpdate;
  update.combine = node.op == Op::kReduceMax   ? Op::kMaximum
                   : node.op == Op::kReduceMin ? Op::kMinimum
                                               : Op::kAdd;
  update.order = AccumulationOrder::kSequential;
  if (IsFloat(acc_dtype) && options_.fast_math) {
    update.order = AccumulationOrder::kReassociated;
  } else if (IsFloat(acc_dtype) && update.kind == StmtKind::kAccUpdate &&
             update.combine == Op::kAdd && options_.reduce_order == AccumulationOrder::kTree) {
    update.order = AccumulationOrder::kTree;
    FlattenReductionLoops(loops, in_index);
  }
  update.value = Cast(Eval(x, in_index), acc_dtype);
  if (node.op == Op::kArgmax) update.index = loops.empty() ? IConst(0) : Var(loops.back().first);
  std::vector<Stmt> body = {update};
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    std::vector<Stmt> wrapped;
    wrapped.push_back(Loop(it->first, it->second, std::move(body)));
    body = std::move(wrapped);
  }
  for (Stmt& s : body) out.push_back(std::move(s));

  int32_t value = AccRead(node.op == Op::kArgmax ? acc + 1 : acc);
  if (node.op == Op::kReduceMean) {
    int64_t count = 1;
    for (int a : axes) count *= in.dim(a);
    value = OpExpr(Op::kDiv, acc_dtype, value, Const(acc_dtype, static_cast<double>(count)));
  }
  value = Cast(value, node.type.dtype);
  return ApplyValueFaults(node.op, node.type.dtype, value);
}

void KernelLowering::FlattenReductionLoops(std::vector<std::pair<int32_t, int64_t>>& loops,
                                           Index& in_index) {
  // One loop over the row-major flattening of the reduced axes (also for a
  // single axis, or none: the tree is then over one or zero elements).
  int64_t total = 1;
  for (const auto& loop : loops) total *= loop.second;
  const int32_t flat = NewVar();
  int64_t stride = total;
  for (size_t j = 0; j < loops.size(); ++j) {
    const int64_t extent = loops[j].second;
    stride = extent == 0 ? 0 : stride / extent;
    int32_t index = stride > 1 ? IndexOpExpr(IndexOp::kDiv, Var(flat), IConst(stride)) : Var(flat);
    if (j > 0) index = IndexOpExpr(IndexOp::kMod, index, IConst(extent));
    const int32_t old_var = Var(loops[j].first);
    for (int32_t& e : in_index) {
      if (e == old_var) e = index;
    }
  }
  loops.assign(1, {flat, total});
}

absl::Status KernelLowering::LowerGroup(const fusion::FusionGroup& group) {
  root_ = group.root;
  reduction_ = group.reduction;
  switch (group.kind) {
    case fusion::GroupKind::kElementwise:
      if (group.reduction.valid()) return LowerFusedReduction(group);
      return LowerElementwise(group);
    case fusion::GroupKind::kReduction: return LowerReductionRoot(group);
    case fusion::GroupKind::kMatmul: return LowerMatmul(group);
    case fusion::GroupKind::kConcat: return LowerConcat(group);
    case fusion::GroupKind::kWindow: return LowerWindow(group);
    case fusion::GroupKind::kScan: return LowerScan(group);
  }
  return absl::InternalError("unknown group kind");
}

void KernelLowering::MarkParallel(int64_t work) {
  if (options_.threads <= 1 || work < kMinParallelWork || kernel_.body.size() != 1) return;
  Stmt& top = kernel_.body[0];
  if (top.kind == StmtKind::kLoop && top.extent >= 2) top.parallel = true;
}

absl::Status KernelLowering::LowerElementwise(const fusion::FusionGroup& group) {
  const Shape& shape = graph_.type(group.root).shape;
  const int32_t buffer = buffer_of_[group.root.value];
  Index vars(shape.rank());
  kernel_.body = LoopNest(shape, 0, vars, [&](const Index& v) {
    return std::vector<Stmt>{Store(buffer, Linear(buffer, v), Eval(group.root, v))};
  });
  MarkParallel(shape.num_elements());
  return error_;
}

absl::Status KernelLowering::LowerFusedReduction(const fusion::FusionGroup& group) {
  const Shape& shape = graph_.type(group.root).shape;
  const Shape& red_shape = graph_.type(group.reduction).shape;
  const int32_t buffer = buffer_of_[group.root.value];
  const int outer = group.outer_dims;
  Index vars(shape.rank());
  Shape outer_shape(std::vector<int64_t>(shape.dims().begin(), shape.dims().begin() + outer));
  kernel_.body = LoopNest(outer_shape, 0, vars, [&](const Index& outer_vars) {
    std::vector<Stmt> body;
    Index red_index(red_shape.rank(), IConst(0));
    for (int k = 0; k < outer; ++k) red_index[k] = outer_vars[k];
    if (group.wrong_index && outer > 0 && shape.dim(outer - 1) > 1) {
      red_index[outer - 1] = IndexOpExpr(IndexOp::kMod, Add(outer_vars[outer - 1], IConst(1)),
                                         IConst(shape.dim(outer - 1)));
    }
    reduction_value_ = LowerReduction(group.reduction, red_index, body);
    Index all = outer_vars;
    std::vector<Stmt> inner = LoopNest(shape, outer, all, [&](const Index& v) {
      return std::vector<Stmt>{Store(buffer, Linear(buffer, v), Eval(group.root, v))};
    });
    for (Stmt& s : inner) body.push_back(std::move(s));
    return body;
  });
  MarkParallel(graph_.type(graph_.node(group.reduction).operands[0]).num_elements());
  return error_;
}

absl::Status KernelLowering::LowerReductionRoot(const fusion::FusionGroup& group) {
  const Shape& shape = graph_.type(group.root).shape;
  const int32_t buffer = buffer_of_[group.root.value];
  Index vars(shape.rank());
  kernel_.body = LoopNest(shape, 0, vars, [&](const Index& v) {
    std::vector<Stmt> body;
    const int32_t value = LowerReduction(group.root, v, body);
    body.push_back(Store(buffer, Linear(buffer, v), value));
    return body;
  });
  MarkParallel(graph_.type(graph_.node(group.root).operands[0]).num_elements());
  return error_;
}

absl::Status KernelLowering::LowerConcat(const fusion::FusionGroup& group) {
  const Node& node = graph_.node(group.root);
  const Shape& shape = node.type.shape;
  const int32_t buffer = buffer_of_[group.root.value];
  const int axis = NormalizeAxis(node.attrs.GetInt("axis").value_or(0), shape.rank()).value_or(0);
  int64_t offset = 0;
  for (NodeId operand : node.operands) {
    const Shape& in = graph_.type(operand).shape;
    Index vars(in.rank());
    std::vector<Stmt> loops = LoopNest(in, 0, vars, [&](const Index& v) {
      Index out_index = v;
      out_index[axis] = Add(v[axis], IConst(offset));
      return std::vector<Stmt>{Store(buffer, Linear(buffer, out_index), Eval(operand, v))};
    });
    for (Stmt& s : loops) kernel_.body.push_back(std::move(s));
    offset += in.dim(axis);
  }
  return error_;
}

// cumsum: loops over every axis but the scanned one (independent rows, the
// outermost may run on threads), and per row an accumulator (the sum's dtype,
// f64 for floats unless fast_math or low_precision) updated left to right
// along the axis, or right to left with reverse, storing its value after each
// update (before it, exclusive).
absl::Status KernelLowering::LowerScan(const fusion::FusionGroup& group) {
  const Node& node = graph_.node(group.root);
  const Shape& shape = node.type.shape;
  const DType dtype = node.type.dtype;
  const int axis = NormalizeAxis(node.attrs.GetInt("axis").value_or(0), shape.rank()).value_or(0);
  const bool exclusive = node.attrs.GetBool("exclusive").value_or(false);
  const bool reverse = node.attrs.GetBool("reverse").value_or(false);
  const int64_t n = shape.dim(axis);
  const int32_t buffer = buffer_of_[group.root.value];
  const DType acc_dtype = AccumulatorType(node.op, dtype);
  std::vector<int64_t> rows = shape.dims();
  rows[axis] = 1;
  Index vars(shape.rank());
  kernel_.body = LoopNest(Shape(rows), 0, vars, [&](const Index& row) {
    const int32_t acc = static_cast<int32_t>(kernel_.accumulators.size());
    kernel_.accumulators.push_back(acc_dtype);
    Stmt init;
    init.kind = StmtKind::kAccInit;
    init.acc = acc;
    init.value = Const(acc_dtype, 0);
    const int32_t step = NewVar();
    Index index = row;
    index[axis] = Var(step);
    if (reverse && n > 1) {
      // n - 1 - step as ((n - 1) * (step + 1)) mod n: index arithmetic stays
      // on non-negative values.
      index[axis] = IndexOpExpr(IndexOp::kMod, Mul(Add(Var(step), IConst(1)), n - 1), IConst(n));
    }
    Stmt update;
    update.kind = StmtKind::kAccUpdate;
    update.acc = acc;
    update.combine = Op::kAdd;
    update.order = AccumulationOrder::kSequential;
    update.value = Cast(Eval(node.operands[0], index), acc_dtype);
    const int32_t value = ApplyValueFaults(node.op, dtype, Cast(AccRead(acc), dtype));
    Stmt store = Store(buffer, Linear(buffer, index), value);
    std::vector<Stmt> body;
    if (exclusive) body.push_back(store);
    body.push_back(update);
    if (!exclusive) body.push_back(store);
    std::vector<Stmt> out;
    out.push_back(init);
    out.push_back(Loop(step, n, std::move(body)));
    return out;
  });
  MarkParallel(shape.num_elements());
  return error_;
}

}  // namespace rk::compiler::kernel
