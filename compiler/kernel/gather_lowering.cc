// gather in kernel IR (lowering.h): an index map with a data-dependent
// component. At an element of the result, the index operand is evaluated at
// the element's indices dims and widened to i64 (k); a negative k gets the
// axis size added; the data operand is then read at the element's outer and
// inner indices with that position on the gathered axis. Out-of-range
// positions are clamped to 0 before the read (no load ever leaves the
// buffer) and the value is selected to 0 afterwards. Like any elementwise
// node, gather fuses into its users and its operands fuse into it.
//
// Tested by compiler/kernel/kernel_builder_test.cc and end to end by
// compiler/driver/compile_ops_test.cc.
#include "compiler/ir/shape_inference.h"
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {

int32_t KernelLowering::EvalGather(NodeId id, const Index& index) {
  const Node& node = graph_.node(id);
  const NodeId data = node.operands[0];
  const NodeId indices = node.operands[1];
  const Shape& data_shape = graph_.type(data).shape;
  const int q = graph_.type(indices).shape.rank();
  const int axis =
      NormalizeAxis(node.attrs.GetInt("axis").value_or(0), data_shape.rank()).value_or(0);
  const DType dtype = node.type.dtype;
  const int64_t size = data_shape.dim(axis);
  // An empty axis: every index is out of range and nothing may be read.
  if (size == 0) return ApplyValueFaults(Op::kGather, dtype, Const(dtype, 0));

  const Index at(index.begin() + axis, index.begin() + axis + q);
  const int32_t k = Cast(Eval(indices, at), DType::kI64);
  const int32_t zero = IConst(0);
  const int32_t bound = IConst(size);
  const int32_t wrapped = OpExpr(Op::kWhere, DType::kI64, OpExpr(Op::kLt, DType::kBool, k, zero),
                                 OpExpr(Op::kAdd, DType::kI64, k, bound), k);
  const int32_t in_range =
      OpExpr(Op::kAnd, DType::kBool, OpExpr(Op::kGe, DType::kBool, wrapped, zero),
             OpExpr(Op::kLt, DType::kBool, wrapped, bound));
  const int32_t position = OpExpr(Op::kWhere, DType::kI64, in_range, wrapped, zero);

  Index data_index(index.begin(), index.begin() + axis);
  data_index.push_back(size == 1 ? zero : position);
  data_index.insert(data_index.end(), index.begin() + axis + q, index.end());
  const int32_t value = OpExpr(Op::kWhere, dtype, in_range, Eval(data, data_index),
                               Const(dtype, 0));
  return ApplyValueFaults(Op::kGather, dtype, value);
}

}  // namespace rk::compiler::kernel
