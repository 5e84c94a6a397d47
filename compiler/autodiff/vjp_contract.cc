// Gradient rules of matmul and gather.
//
// matmul [.., M, K] x [.., K, N]: dA = g B^T and dB = A^T g, each summed back
// over the batch dims its operand was broadcast along.
//
// gather(data, indices) {axis}: the gradient is a scatter-add of g into
// data's shape. The IR has no scatter, so it is a matmul with a one-hot
// matrix: onehot[i, a] = (indices[i] == a) over the flattened indices i and
// the axis positions a (negative indices count from the end, as the forward
// op; an index still out of range matches no position and gets nothing), and
// g reshaped to [outer, n_indices, inner] gives
// data_grad[outer, a, inner] = sum_i onehot[i, a] g[outer, i, inner].
#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"
#include "compiler/ir/shape_inference.h"

namespace rk::compiler::autodiff {
namespace {

// A matrix transpose; vjp:matmul:reshape_transpose plants the classic bug of
// reshaping to the transposed shape instead (same shape, elements unmoved).
absl::StatusOr<NodeId> MatrixTranspose(GradBuilder& gb, const VjpArgs& a, NodeId x) {
  if (a.faults.HasVjp(Op::kMatmul, FaultKind::kReshapeTranspose)) {
    std::vector<int64_t> dims = gb.shape(x).dims();
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    return gb.Reshape(x, Shape(std::move(dims)));
  }
  return gb.SwapLastTwo(x);
}

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= dims[i];
  return n;
}

}  // namespace

absl::StatusOr<Grads> MatmulVjp(GradBuilder& gb, const VjpArgs& a) {
  Grads grads(2);
  if (a.wants[0]) {
    RK_ASSIGN_OR_RETURN(NodeId bt, MatrixTranspose(gb, a, a.x[1]));
    RK_ASSIGN_OR_RETURN(NodeId ga, gb.Bin(Op::kMatmul, a.g, bt));
    RK_ASSIGN_OR_RETURN(grads[0], gb.ReduceToShape(ga, gb.shape(a.x[0])));
  }
  if (a.wants[1]) {
    RK_ASSIGN_OR_RETURN(NodeId at, MatrixTranspose(gb, a, a.x[0]));
    RK_ASSIGN_OR_RETURN(NodeId gw, gb.Bin(Op::kMatmul, at, a.g));
    RK_ASSIGN_OR_RETURN(grads[1], gb.ReduceToShape(gw, gb.shape(a.x[1])));
  }
  return grads;
}

absl::StatusOr<Grads> GatherVjp(GradBuilder& gb, const VjpArgs& a) {
  Grads grads(2);
  if (!a.wants[0]) return grads;
  const NodeId indices = a.x[1];
  const std::vector<int64_t> data_dims = gb.shape(a.x[0]).dims();
  const std::vector<int64_t> index_dims = gb.shape(indices).dims();
  const DType it = gb.type(indices).dtype;
  const DType dt = gb.type(a.g).dtype;
  RK_ASSIGN_OR_RETURN(int64_t raw_axis, a.node.attrs.GetInt("axis"));
  RK_ASSIGN_OR_RETURN(int axis, NormalizeAxis(raw_axis, static_cast<int>(data_dims.size())));
  const int64_t size = data_dims[axis];
  const int64_t outer = Product(data_dims, 0, axis);
  const int64_t inner = Product(data_dims, axis + 1, data_dims.size());
  const int64_t count = Product(index_dims, 0, index_dims.size());

  // Negative indices count from the end.
  RK_ASSIGN_OR_RETURN(NodeId zero, gb.Scalar(it, 0.0));
  RK_ASSIGN_OR_RETURN(NodeId negative, gb.Bin(Op::kLt, indices, zero));
  RK_ASSIGN_OR_RETURN(NodeId wrapped, gb.BinScalar(Op::kAdd, indices, static_cast<double>(size)));
  RK_ASSIGN_OR_RETURN(NodeId index, gb.Where(negative, wrapped, indices));
  RK_ASSIGN_OR_RETURN(NodeId column, gb.Reshape(index, Shape{count, 1}));
  RK_ASSIGN_OR_RETURN(NodeId positions,
                      gb.builder().Add(Op::kIota, {},
                                       {{"axis", int64_t{1}}, {"dtype", it},
                                        {"shape", std::vector<int64_t>{1, size}}}));
  RK_ASSIGN_OR_RETURN(NodeId hit, gb.Bin(Op::kEq, column, positions));  // [count, size]
  RK_ASSIGN_OR_RETURN(NodeId onehot, gb.Cast(hit, dt));
  RK_ASSIGN_OR_RETURN(NodeId onehot_t, gb.SwapLastTwo(onehot));  // [size, count]
  RK_ASSIGN_OR_RETURN(NodeId g3, gb.Reshape(a.g, Shape{outer, count, inner}));
  RK_ASSIGN_OR_RETURN(NodeId scattered, gb.Bin(Op::kMatmul, onehot_t, g3));  // [outer, size, inner]
  RK_ASSIGN_OR_RETURN(grads[0], gb.Reshape(scattered, Shape(data_dims)));
  return grads;
}

}  // namespace rk::compiler::autodiff
