// Matmul kernels (lowering.h), in one of two forms:
// - rows (the NVPTX backend's input, which it matches and retiles): loops
//   over batch and rows; per row, a row of accumulators updated in i-k-j
//   order so the innermost loop reads the right operand contiguously;
// - tiled (KernelOptions::tiled_matmul, the x86 form): per batch, panels of
//   kMatmulTileCols columns outer, tiles of kMatmulTileRows rows inner. A
//   panel of the right operand (K x 8) is first copied into a contiguous
//   stack array when it fits (in place its rows lie N elements apart, and for
//   N a multiple of 512 they share a few cache sets and evict each other);
//   it then stays in L1 while every row tile of the panel runs. A tile's
//   4 x 8 accumulators (in the accumulation dtype) are a local array written
//   with constant slots only (the row and column loops are unrolled in the
//   IR), so LLVM keeps them in vector registers across the whole k loop: per
//   k, one 8-wide row of the panel and 4 broadcast left-operand values feed
//   32 multiply-adds. Every output still sums its products in increasing k
//   in the accumulation dtype, so results equal the row form bit for bit.
//   Edge tiles are the same code with fewer rows or columns.
#include <algorithm>

#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {
namespace {

constexpr int64_t kMatmulTileRows = 4;
// 4 x 8 f64 accumulators: 8 AVX2 registers. (4 x 16 for f32 accumulators,
// under fast_math, measured no faster.)
constexpr int64_t kMatmulTileCols = 8;
// Right-operand panels up to this size are packed (above); bigger ones (K
// over 16K for f32) are read in place.
constexpr int64_t kMaxPackedPanelBytes = 512 * 1024;

}  // namespace

absl::Status KernelLowering::LowerMatmul(const fusion::FusionGroup& group) {
  if (options_.tiled_matmul) return LowerMatmulTiled(group);
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

absl::Status KernelLowering::LowerMatmulTiled(const fusion::FusionGroup& group) {
  const Node& node = graph_.node(group.root);
  const NodeId a = node.operands[0];
  const NodeId b = node.operands[1];
  const Shape& out = node.type.shape;
  const Shape& sa = graph_.type(a).shape;
  const Shape& sb = graph_.type(b).shape;
  const int rank = out.rank();
  const int64_t m = out.dim(rank - 2);
  const int64_t n = out.dim(rank - 1);
  const int64_t k_extent = sa.dim(sa.rank() - 1);
  const DType acc_dtype = AccumulatorType(Op::kMatmul, node.type.dtype);
  const int32_t buffer = buffer_of_[group.root.value];
  if (m == 0 || n == 0) return error_;
  const int64_t tile_rows = std::min(m, kMatmulTileRows);
  const int64_t tile_cols = std::min(n, kMatmulTileCols);

  Buffer local;
  local.role = BufferRole::kLocal;
  local.type = TensorType(acc_dtype, Shape({tile_rows * tile_cols}));
  local.strides = {1};
  local.name = "acc_tile";
  const int32_t tile = static_cast<int32_t>(program_.buffers.size());
  program_.buffers.push_back(local);
  kernel_.locals.push_back(tile);

  const DType b_dtype = graph_.type(b).dtype;
  int32_t panel = -1;
  if (k_extent * tile_cols * DTypeSize(b_dtype) <= kMaxPackedPanelBytes) {
    Buffer packed;
    packed.role = BufferRole::kLocal;
    packed.type = TensorType(b_dtype, Shape({k_extent * tile_cols}));
    packed.strides = {1};
    packed.name = "rhs_panel";
    panel = static_cast<int32_t>(program_.buffers.size());
    program_.buffers.push_back(packed);
    kernel_.locals.push_back(panel);
  }

  auto operand_index = [&](const Shape& s, const Index& batch, int32_t r, int32_t c) {
    Index idx(s.rank(), IConst(0));
    const int offset = (rank - 2) - (s.rank() - 2);
    for (int d = 0; d < s.rank() - 2; ++d) idx[d] = s.dim(d) == 1 ? IConst(0) : batch[d + offset];
    idx[s.rank() - 2] = r;
    idx[s.rank() - 1] = c;
    return idx;
  };
  // The right operand at (k, col0 + jj): from the packed panel when there
  // is one (filled by pack_panel), else in place.
  auto rhs_value = [&](const Index& batch, int32_t k, int32_t col0, int32_t jj) {
    if (panel >= 0) return Load(panel, Add(Mul(k, tile_cols), jj));
    return Eval(b, operand_index(sb, batch, k, Add(col0, jj)));
  };
  // A loop over [0, extent) whose variable `body` receives (a constant 0 for
  // extent 1, no loop at all).
  auto loop = [&](int64_t extent, const std::function<std::vector<Stmt>(int32_t)>& body) {
    if (extent == 1) return body(IConst(0));
    const int32_t v = NewVar();
    return std::vector<Stmt>{Loop(v, extent, body(Var(v)))};
  };
  // The statements of body(0), ..., body(extent - 1), with no loop: a tile's
  // rows and columns, so that every accumulator has a constant slot and
  // LLVM keeps the whole tile in vector registers across the k loop.
  auto unrolled = [&](int64_t extent, const std::function<std::vector<Stmt>(int32_t)>& body) {
    std::vector<Stmt> out;
    for (int64_t i = 0; i < extent; ++i) {
      for (Stmt& s : body(IConst(i))) out.push_back(std::move(s));
    }
    return out;
  };
  // One tile: rows [row0, row0 + rows), columns [col0, col0 + cols).
  auto emit_tile = [&](const Index& batch, int32_t row0, int64_t rows, int32_t col0, int64_t cols) {
    auto slot = [&](int32_t ii, int32_t jj) { return Add(Mul(ii, tile_cols), jj); };
    std::vector<Stmt> body = unrolled(rows, [&](int32_t ii) {
      return unrolled(cols, [&](int32_t jj) {
        return std::vector<Stmt>{Store(tile, slot(ii, jj), Const(acc_dtype, 0))};
      });
    });
    std::vector<Stmt> update = loop(k_extent, [&](int32_t k) {
      return unrolled(rows, [&](int32_t ii) {
        const int32_t lhs = Cast(Eval(a, operand_index(sa, batch, Add(row0, ii), k)), acc_dtype);
        return unrolled(cols, [&](int32_t jj) {
          const int32_t rhs = Cast(rhs_value(batch, k, col0, jj), acc_dtype);
          const int32_t sum = OpExpr(Op::kAdd, acc_dtype, Load(tile, slot(ii, jj)),
                                     OpExpr(Op::kMul, acc_dtype, lhs, rhs));
          return std::vector<Stmt>{Store(tile, slot(ii, jj), sum)};
        });
      });
    });
    std::vector<Stmt> store = unrolled(rows, [&](int32_t ii) {
      return unrolled(cols, [&](int32_t jj) {
        Index out_index = batch;
        out_index[rank - 2] = Add(row0, ii);
        out_index.push_back(Add(col0, jj));
        const int32_t value = ApplyValueFaults(
            Op::kMatmul, node.type.dtype, Cast(Load(tile, slot(ii, jj)), node.type.dtype));
        return std::vector<Stmt>{Store(buffer, Linear(buffer, out_index), value)};
      });
    });
    for (std::vector<Stmt>* part : {&update, &store}) {
      for (Stmt& s : *part) body.push_back(std::move(s));
    }
    return body;
  };
  // Full tiles, then the edge tiles of the last rows and columns.
  auto column_panel = [&](const Index& batch, int32_t col0, int64_t cols) {
    std::vector<Stmt> body;
    if (panel >= 0) {
      body = loop(k_extent, [&](int32_t k) {
        return loop(cols, [&](int32_t jj) {
          return std::vector<Stmt>{Store(panel, Add(Mul(k, tile_cols), jj),
                                         Eval(b, operand_index(sb, batch, k, Add(col0, jj))))};
        });
      });
    }
    for (Stmt& s : loop(m / tile_rows, [&](int32_t i0) {
           return emit_tile(batch, Mul(i0, tile_rows), tile_rows, col0, cols);
         })) {
      body.push_back(std::move(s));
    }
    if (m % tile_rows != 0) {
      for (Stmt& s : emit_tile(batch, IConst(m - m % tile_rows), m % tile_rows, col0, cols)) {
        body.push_back(std::move(s));
      }
    }
    return body;
  };
  Shape batch_shape(std::vector<int64_t>(out.dims().begin(), out.dims().end() - 2));
  Index batch_vars(batch_shape.rank());
  kernel_.body = LoopNest(batch_shape, 0, batch_vars, [&](const Index& bv) {
    Index batch = bv;
    batch.push_back(IConst(0));  // the row, set per tile
    std::vector<Stmt> body = loop(n / tile_cols, [&](int32_t j0) {
      return column_panel(batch, Mul(j0, tile_cols), tile_cols);
    });
    if (n % tile_cols != 0) {
      for (Stmt& s : column_panel(batch, IConst(n - n % tile_cols), n % tile_cols)) {
        body.push_back(std::move(s));
      }
    }
    return body;
  });
  MarkParallel(out.num_elements() * k_extent);
  return error_;
}

}  // namespace rk::compiler::kernel
