// Expressions and node evaluation for KernelLowering (lowering.h).
#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {

int32_t KernelLowering::Intern(const Expr& e) {
  int64_t float_bits = 0;
  std::memcpy(&float_bits, &e.float_value, sizeof(float_bits));
  auto key = std::make_tuple(static_cast<int>(e.kind), static_cast<int>(e.dtype),
                             static_cast<int>(e.op), static_cast<int>(e.index_op), e.a, e.b, e.c,
                             e.int_value, float_bits, e.buffer, e.var, e.acc);
  auto [it, inserted] = interned_.emplace(key, static_cast<int32_t>(kernel_.exprs.size()));
  if (inserted) kernel_.exprs.push_back(e);
  return it->second;
}

int32_t KernelLowering::IConst(int64_t v) {
  Expr e;
  e.kind = ExprKind::kConst;
  e.dtype = DType::kI64;
  e.int_value = v;
  return Intern(e);
}

int32_t KernelLowering::Const(DType dtype, double value) {
  Expr e;
  e.kind = ExprKind::kConst;
  e.dtype = dtype;
  // Round through a tensor so the constant is exactly the dtype's value.
  HostTensor t = HostTensor::Full(TensorType(dtype, Shape()), value);
  if (IsFloat(dtype)) {
    e.float_value = t.GetDouble(0);
  } else {
    e.int_value = t.GetInt(0);
  }
  return Intern(e);
}

int32_t KernelLowering::Var(int32_t var) {
  Expr e;
  e.kind = ExprKind::kLoopVar;
  e.dtype = DType::kI64;
  e.var = var;
  return Intern(e);
}

bool KernelLowering::IsConst(int32_t e, int64_t v) const {
  const Expr& x = kernel_.exprs[e];
  return x.kind == ExprKind::kConst && x.dtype == DType::kI64 && x.int_value == v;
}

int32_t KernelLowering::IndexOpExpr(IndexOp op, int32_t a, int32_t b) {
  const Expr& ea = kernel_.exprs[a];
  const Expr& eb = kernel_.exprs[b];
  const bool both_const = ea.kind == ExprKind::kConst && eb.kind == ExprKind::kConst;
  switch (op) {
    case IndexOp::kAdd:
      if (both_const) return IConst(ea.int_value + eb.int_value);
      if (IsConst(a, 0)) return b;
      if (IsConst(b, 0)) return a;
      break;
    case IndexOp::kMul:
      if (both_const) return IConst(ea.int_value * eb.int_value);
      if (IsConst(a, 0) || IsConst(b, 0)) return IConst(0);
      if (IsConst(b, 1)) return a;
      if (IsConst(a, 1)) return b;
      break;
    case IndexOp::kDiv:
      if (both_const) return IConst(ea.int_value / eb.int_value);
      if (IsConst(b, 1)) return a;
      break;
    case IndexOp::kMod:
      if (both_const) return IConst(ea.int_value % eb.int_value);
      if (IsConst(b, 1)) return IConst(0);
      break;
  }
  Expr e;
  e.kind = ExprKind::kIndex;
  e.dtype = DType::kI64;
  e.index_op = op;
  e.a = a;
  e.b = b;
  return Intern(e);
}

int32_t KernelLowering::OpExpr(Op op, DType dtype, int32_t a, int32_t b, int32_t c) {
  Expr e;
  e.kind = ExprKind::kOp;
  e.op = op;
  e.dtype = dtype;
  e.a = a;
  e.b = b;
  e.c = c;
  return Intern(e);
}

int32_t KernelLowering::Cast(int32_t a, DType dtype) {
  if (kernel_.exprs[a].dtype == dtype) return a;
  Expr e;
  e.kind = ExprKind::kCast;
  e.dtype = dtype;
  e.a = a;
  return Intern(e);
}

int32_t KernelLowering::Load(int32_t buffer, int32_t flat) {
  Expr e;
  e.kind = ExprKind::kLoad;
  e.dtype = program_.buffers[buffer].type.dtype;
  e.buffer = buffer;
  e.a = flat;
  return Intern(e);
}

int32_t KernelLowering::AccRead(int32_t acc) {
  Expr e;
  e.kind = ExprKind::kAccRead;
  e.dtype = kernel_.accumulators[acc];
  e.acc = acc;
  return Intern(e);
}

int32_t KernelLowering::Linear(int32_t buffer, const Index& index) {
  const Buffer& b = program_.buffers[buffer];
  int32_t flat = IConst(0);
  for (size_t k = 0; k < index.size(); ++k) {
    if (b.type.shape.dim(static_cast<int>(k)) == 1) continue;
    flat = Add(flat, Mul(index[k], b.strides[k]));
  }
  return flat;
}

Index KernelLowering::BroadcastIndex(const Shape& from, const Shape& to, const Index& index) {
  Index result(from.rank());
  const int offset = to.rank() - from.rank();
  for (int k = 0; k < from.rank(); ++k) {
    result[k] = from.dim(k) == 1 ? IConst(0) : index[k + offset];
  }
  return result;
}

int32_t KernelLowering::ApplyValueFaults(Op op, DType dtype, int32_t value) {
  if (options_.faults == nullptr || dtype == DType::kBool) return value;
  if (options_.faults->Has(op, FaultKind::kAccuracy)) {
    if (IsFloat(dtype)) {
      // A 1% relative error plus a small absolute one.
      int32_t scaled = OpExpr(Op::kMul, dtype, OpExpr(Op::kAbs, dtype, value), Const(dtype, 0.01));
      value = OpExpr(Op::kAdd, dtype, value, OpExpr(Op::kAdd, dtype, scaled, Const(dtype, 1e-3)));
    } else {
      value = OpExpr(Op::kAdd, dtype, value, Const(dtype, 1));
    }
  }
  if (options_.faults->Has(op, FaultKind::kNondeterministic)) {
    Expr e;
    e.kind = ExprKind::kRunCounter;
    e.dtype = DType::kI64;
    int32_t counter = Intern(e);
    int32_t delta = Cast(counter, dtype);
    if (IsFloat(dtype)) delta = OpExpr(Op::kMul, dtype, delta, Const(dtype, 1e-3));
    value = OpExpr(Op::kAdd, dtype, value, delta);
  }
  return value;
}

int32_t KernelLowering::Eval(NodeId id, const Index& index) {
  if (id == reduction_ && reduction_value_ >= 0) return reduction_value_;
  if (plan_.materialized[id.value] && id != root_) {
    const int32_t buffer = buffer_of_[id.value];
    return Load(buffer, Linear(buffer, index));
  }
  auto key = std::make_pair(id.value, index);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  const int32_t value = EvalUncached(id, index);
  memo_.emplace(std::move(key), value);
  return value;
}

int32_t KernelLowering::EvalUncached(NodeId id, const Index& index) {
  const Node& node = graph_.node(id);
  const DType dtype = node.type.dtype;
  switch (GetOpKind(node.op)) {
    case OpKind::kSource:
      if (node.op == Op::kFull) return Const(dtype, node.attrs.GetFloat("value").value_or(0));
      if (node.op == Op::kIota) {
        int axis = static_cast<int>(node.attrs.GetInt("axis").value_or(0));
        if (axis < 0) axis += node.type.shape.rank();  // InferType allows negative axes
        return Cast(index[axis], dtype);
      }
      break;
    case OpKind::kUnary:
    case OpKind::kBinary:
    case OpKind::kCompare:
    case OpKind::kLogic:
    case OpKind::kSelect:
    case OpKind::kCast: {
      int32_t args[3] = {-1, -1, -1};
      for (size_t i = 0; i < node.operands.size() && i < 3; ++i) {
        NodeId operand = node.operands[i];
        args[i] = Eval(operand, BroadcastIndex(graph_.type(operand).shape, node.type.shape, index));
      }
      int32_t value = args[0];
      if (node.op == Op::kCast) {
        value = Cast(args[0], dtype);
      } else if (node.op == Op::kClip) {
        // min(max(x, min), max) with the bounds in the dtype; NaN propagates.
        if (node.attrs.Has("min")) {
          value = OpExpr(Op::kMaximum, dtype, value, Const(dtype, *node.attrs.GetFloat("min")));
        }
        if (node.attrs.Has("max")) {
          value = OpExpr(Op::kMinimum, dtype, value, Const(dtype, *node.attrs.GetFloat("max")));
        }
      } else {
        value = OpExpr(node.op, dtype, args[0], args[1], args[2]);
      }
      return ApplyValueFaults(node.op, dtype, value);
    }
    case OpKind::kLayout:
      if (node.op != Op::kConcat) return EvalLayout(id, index);
      break;
    case OpKind::kGather: return EvalGather(id, index);
    default:
      break;
  }
  if (error_.ok()) {
    error_ = absl::InternalError(absl::StrCat("kernel lowering: node %", graph_.DisplayName(id),
                                              " (", std::string(OpName(node.op)), ") cannot be inlined"));
  }
  return Const(dtype, 0);
}

int32_t KernelLowering::EvalLayout(NodeId id, const Index& index) {
  const Node& node = graph_.node(id);
  const NodeId x = node.operands[0];
  const Shape& in = graph_.type(x).shape;
  const Shape& out = node.type.shape;
  Index in_index(in.rank(), IConst(0));
  switch (node.op) {
    case Op::kReshape: {
      const std::vector<int64_t> out_strides = out.Strides();
      int32_t flat = IConst(0);
      for (int k = 0; k < out.rank(); ++k) {
        if (out.dim(k) != 1) flat = Add(flat, Mul(index[k], out_strides[k]));
      }
      if (plan_.materialized[x.value]) return Load(buffer_of_[x.value], flat);
      const std::vector<int64_t> in_strides = in.Strides();
      for (int k = 0; k < in.rank(); ++k) {
        if (in.dim(k) == 1) continue;
        int32_t q = IndexOpExpr(IndexOp::kDiv, flat, IConst(in_strides[k]));
        in_index[k] = k == 0 ? q : IndexOpExpr(IndexOp::kMod, q, IConst(in.dim(k)));
      }
      break;
    }
    case Op::kTranspose: {
      std::vector<int64_t> perm = node.attrs.GetInts("perm").value_or(std::vector<int64_t>{});
      for (int k = 0; k < out.rank() && k < static_cast<int>(perm.size()); ++k) {
        in_index[perm[k]] = index[k];
      }
      break;
    }
    case Op::kBroadcastTo:
      in_index = BroadcastIndex(in, out, index);
      break;
    case Op::kSlice: {
      std::vector<int64_t> start = node.attrs.GetInts("start").value_or(std::vector<int64_t>{});
      std::vector<int64_t> stride = node.attrs.GetInts("stride").value_or(std::vector<int64_t>{});
      for (int k = 0; k < in.rank(); ++k) {
        in_index[k] = Add(IConst(start[k]), Mul(index[k], stride[k]));
      }
      break;
    }
    case Op::kPad: return EvalPad(id, index);
    case Op::kSqueeze:
    case Op::kUnsqueeze: {
      // Both keep the non-unit dims in order; unit dims index 0.
      int j = 0;
      const bool squeeze = node.op == Op::kSqueeze;
      std::vector<int64_t> raw = node.attrs.GetInts("axes").value_or(std::vector<int64_t>{});
      const int axes_rank = squeeze ? in.rank() : out.rank();
      std::vector<bool> listed(axes_rank, false);
      for (int64_t a : raw) listed[NormalizeAxis(a, axes_rank).value_or(0)] = true;
      for (int k = 0; k < axes_rank; ++k) {
        if (listed[k]) continue;
        if (squeeze) {
          in_index[k] = index[j++];
        } else {
          in_index[j++] = index[k];
        }
      }
      break;
    }
    default:
      break;
  }
  return Eval(x, in_index);
}

// pad: per padded axis the operand index (i - begin) mod d, built from
// non-negative terms, which is i - begin inside the operand and some element
// of its row outside (read, then not selected), and the bounds test
// begin <= i < begin + d; the value is where(all tests, x, value). A constant
// index is decided here.
int32_t KernelLowering::EvalPad(NodeId id, const Index& index) {
  const Node& node = graph_.node(id);
  const NodeId x = node.operands[0];
  const Shape& in = graph_.type(x).shape;
  const DType dtype = node.type.dtype;
  const int rank = in.rank();
  const std::vector<int64_t> pads = node.attrs.GetInts("pads").value_or(std::vector<int64_t>{});
  const int32_t fill = Const(dtype, node.attrs.GetFloat("value").value_or(0));
  Index in_index(rank, IConst(0));
  int32_t inside = -1;
  for (int k = 0; k < rank && static_cast<int>(pads.size()) == 2 * rank; ++k) {
    const int64_t begin = pads[k], end = pads[rank + k], d = in.dim(k);
    const Expr e = kernel_.exprs[index[k]];  // a copy: interning below may reallocate
    if (d == 0 || (e.kind == ExprKind::kConst && (e.int_value < begin || e.int_value >= begin + d))) {
      return ApplyValueFaults(node.op, dtype, fill);
    }
    if (e.kind == ExprKind::kConst) {
      in_index[k] = IConst(e.int_value - begin);
      continue;
    }
    if (begin == 0 && end == 0) {
      in_index[k] = index[k];
      continue;
    }
    in_index[k] = IndexOpExpr(IndexOp::kMod, Add(index[k], IConst((d - begin % d) % d)), IConst(d));
    const auto test = [&](int32_t t) {
      inside = inside < 0 ? t : OpExpr(Op::kAnd, DType::kBool, inside, t);
    };
    if (begin > 0) test(OpExpr(Op::kGe, DType::kBool, index[k], IConst(begin)));
    if (end > 0) test(OpExpr(Op::kLt, DType::kBool, index[k], IConst(begin + d)));
  }
  int32_t value = Eval(x, in_index);
  if (inside >= 0) value = OpExpr(Op::kWhere, dtype, inside, value, fill);
  return ApplyValueFaults(node.op, dtype, value);
}

}  // namespace rk::compiler::kernel
