// Matmul kernels (lowering.h): loops over batch and rows; per row, a row of
// accumulators updated in i-k-j order so the innermost loop reads the right
// operand contiguously and vectorizes.
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {

absl::Status KernelLowering::LowerMatmul(const fusion::FusionGroup& group) {
  const Node& node = graph_.node(group.root);
  const NodeId a = node.operands[0];
  const NodeId b = node.operands[1];
  const Shape& out = node.type.shape;
  const Shape& sa = graph_.type(a).shape;
  const Shape& sb = graph_.type(b).shape;
  const int rank = out.rank();
  const int64_t n = out.dim(rank - 1);
  const int64_t k_extent = sa.dim(sa.rank() - 1);
  const DType acc_dtype = AccumulatorType(Op::kMatmul, node.type.dtype);
  const int32_t buffer = buffer_of_[group.root.value];

  // Rows: batch dims and M.
  Shape rows(std::vector<int64_t>(out.dims().begin(), out.dims().end() - 1));
  Index row_vars(rows.rank());
  auto operand_index = [&](const Shape& s, const Index& batch, int32_t r, int32_t c) {
    Index idx(s.rank(), IConst(0));
    const int offset = (rank - 2) - (s.rank() - 2);
    for (int d = 0; d < s.rank() - 2; ++d) {
      idx[d] = s.dim(d) == 1 ? IConst(0) : batch[d + offset];
    }
    idx[s.rank() - 2] = r;
    idx[s.rank() - 1] = c;
    return idx;
  };
  auto product = [&](const Index& rv, int32_t k, int32_t j) {
    const int32_t i = rv[rank - 2];
    const int32_t lhs = Cast(Eval(a, operand_index(sa, rv, i, k)), acc_dtype);
    const int32_t rhs = Cast(Eval(b, operand_index(sb, rv, k, j)), acc_dtype);
    return OpExpr(Op::kMul, acc_dtype, lhs, rhs);
  };
  auto store = [&](const Index& rv, int32_t j, int32_t acc_value) {
    Index out_index = rv;
    out_index.push_back(j);
    const int32_t value = ApplyValueFaults(Op::kMatmul, node.type.dtype,
                                           Cast(acc_value, node.type.dtype));
    return Store(buffer, Linear(buffer, out_index), value);
  };

  if (n <= kMaxLocalRowForMatmul) {
    Buffer local;
    local.role = BufferRole::kLocal;
    local.type = TensorType(acc_dtype, Shape({n}));
    local.strides = {1};
    local.name = "acc_row";
    const int32_t row = static_cast<int32_t>(program_.buffers.size());
    program_.buffers.push_back(local);
    kernel_.locals.push_back(row);
    kernel_.body = LoopNest(rows, 0, row_vars, [&](const Index& rv) {
      std::vector<Stmt> body;
      const int32_t j0 = NewVar();
      body.push_back(Loop(j0, n, {Store(row, Var(j0), Const(acc_dtype, 0))}));
      const int32_t k = NewVar();
      const int32_t j1 = NewVar();
      const int32_t sum =
          OpExpr(Op::kAdd, acc_dtype, Load(row, Var(j1)), product(rv, Var(k), Var(j1)));
      body.push_back(Loop(k, k_extent, {Loop(j1, n, {Store(row, Var(j1), sum)})}));
      const int32_t j2 = NewVar();
      body.push_back(Loop(j2, n, {store(rv, Var(j2), Load(row, Var(j2)))}));
      return body;
    });
  } else {
    kernel_.accumulators.push_back(acc_dtype);
    kernel_.body = LoopNest(rows, 0, row_vars, [&](const Index& rv) {
      const int32_t j = NewVar();
      const int32_t k = NewVar();
      Stmt init;
      init.kind = StmtKind::kAccInit;
      init.acc = 0;
      init.value = Const(acc_dtype, 0);
      Stmt update;
      update.kind = StmtKind::kAccUpdate;
      update.acc = 0;
      update.value = product(rv, Var(k), Var(j));
      std::vector<Stmt> body = {init, Loop(k, k_extent, {update}), store(rv, Var(j), AccRead(0))};
      return std::vector<Stmt>{Loop(j, n, std::move(body))};
    });
  }
  MarkParallel(out.num_elements() * k_extent);
  return error_;
}

}  // namespace rk::compiler::kernel
