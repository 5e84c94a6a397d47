// ONNX's element-wise indexing lowered at import to a gather over the data
// flattened to one axis:
// - GatherElements and GatherND with any indices: the flat position of each
//   read is computed with integer ops (folded at import when the indices are
//   known), negative indices count from the end, and an index out of range
//   (ONNX: an error) is sent out of the flat data's range, so the gather
//   reads 0 and the reference interpreter reports undefined behavior (a
//   flat position can be in range while one coordinate is not);
// - ScatterND and ScatterElements with indices known at import: the source
//   of every result element (an update element, or the data) is computed on
//   the host, and the result is where(written, gather(updates flattened,
//   source), data). With reduction "none" ONNX leaves duplicate indices
//   undefined; here the last write wins, as ONNX Runtime's sequential loop
//   gives. A reduction (add, mul, max, min) combines each element's writes
//   in order, one `where` per round of duplicates.
// Exact: every value is moved or combined as ONNX's loop does, in its order.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

// Scatters over more elements are refused (the source map is a constant of
// the data's size, built on the host), and so are gathers whose position
// constant (the indices' size) would be larger.
constexpr int64_t kMaxScatterElements = int64_t{1} << 24;

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= dims[d];
  return p;
}

absl::StatusOr<NodeId> Reshape(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> ToI64(NodeContext& ctx, NodeId x) {
  if (ctx.type(x).dtype == DType::kI64) return x;
  if (!IsInteger(ctx.type(x).dtype)) {
    return ctx.Error(absl::StrCat("indices must be integers, got ", ctx.type(x).ToString()));
  }
  Attributes attrs;
  attrs.Set("dtype", DType::kI64);
  return ctx.Emit(Op::kCast, {x}, std::move(attrs));
}

// An i64 constant of `dims` whose element at multi-index i is
// sum over d of i[d] * weights[d].
absl::StatusOr<NodeId> PositionConstant(NodeContext& ctx, const std::vector<int64_t>& dims,
                                        const std::vector<int64_t>& weights) {
  if (Product(dims, 0, dims.size()) > kMaxScatterElements) {
    return ctx.Unsupported(absl::StrCat("indices of more than ", kMaxScatterElements,
                                        " elements"));
  }
  HostTensor t(TensorType(DType::kI64, Shape(dims)));
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  for (int64_t e = 0; e < t.num_elements(); ++e) {
    int64_t v = 0;
    for (size_t d = 0; d < dims.size(); ++d) v += (e / strides[d]) % dims[d] * weights[d];
    t.SetInt(e, v);
  }
  return ctx.EmitConstant(std::move(t));
}

// The index `k` (i64) against an axis of `size`: a negative one gets `size`
// added; sets `valid` to whether the result lies in [0, size).
absl::StatusOr<NodeId> WrapIndex(NodeContext& ctx, NodeId k, int64_t size, NodeId& valid) {
  RK_ASSIGN_OR_RETURN(NodeId zero, ctx.Scalar(DType::kI64, 0));
  RK_ASSIGN_OR_RETURN(NodeId bound, ctx.Scalar(DType::kI64, static_cast<double>(size)));
  RK_ASSIGN_OR_RETURN(NodeId negative, ctx.Emit(Op::kLt, {k, zero}));
  RK_ASSIGN_OR_RETURN(NodeId shifted, ctx.Emit(Op::kAdd, {k, bound}));
  RK_ASSIGN_OR_RETURN(NodeId wrapped, ctx.Emit(Op::kWhere, {negative, shifted, k}));
  RK_ASSIGN_OR_RETURN(NodeId low, ctx.Emit(Op::kGe, {wrapped, zero}));
  RK_ASSIGN_OR_RETURN(NodeId high, ctx.Emit(Op::kLt, {wrapped, bound}));
  RK_ASSIGN_OR_RETURN(valid, ctx.Emit(Op::kAnd, {low, high}));
  return wrapped;
}

// Whether `id` is a constant whose every element is nonzero.
bool AllTrue(const NodeContext& ctx, NodeId id) {
  std::optional<HostTensor> v = ctx.ValueOf(id);
  if (!v.has_value()) return false;
  for (int64_t i = 0; i < v->num_elements(); ++i) {
    if (v->GetInt(i) == 0) return false;
  }
  return true;
}

// `positions` where `valid`, else `rows` (one past the flat data's rows):
// an index out of range stays out of range for the gather, which reads 0
// there and which the reference interpreter reports as undefined behavior,
// as ONNX makes it an error. Unchanged when every position is known valid.
absl::StatusOr<NodeId> OutOfRangeWhereInvalid(NodeContext& ctx, NodeId valid, NodeId positions,
                                              int64_t rows) {
  if (AllTrue(ctx, valid)) return positions;
  RK_ASSIGN_OR_RETURN(NodeId past, ctx.Scalar(DType::kI64, static_cast<double>(rows)));
  return ctx.Emit(Op::kWhere, {valid, positions, past});
}

absl::StatusOr<NodeId> GatherFlat(NodeContext& ctx, NodeId flat_data, NodeId positions) {
  RK_ASSIGN_OR_RETURN(Op gather, OpNamed(ctx, "gather"));
  Attributes attrs;
  attrs.Set("axis", int64_t{0});
  return ctx.Emit(gather, {flat_data, positions}, std::move(attrs));
}

// Normalizes a known index against `size`; out of range is an error.
absl::StatusOr<int64_t> KnownPosition(NodeContext& ctx, int64_t k, int64_t size) {
  const int64_t p = k < 0 ? k + size : k;
  if (p < 0 || p >= size) {
    return ctx.Error(absl::StrCat("index ", k, " is out of range for a dim of ", size));
  }
  return p;
}

// One round of writes: the update element each result element takes (-1:
// none) and whether any does.
struct Round {
  std::vector<int64_t> source;
  bool any = false;
};

// The writes (result element, update element), in ONNX's order, as rounds:
// round r holds every element's r-th write. With reduction "none" only the
// last write of each element counts, so there is one round.
std::vector<Round> Rounds(const std::vector<std::pair<int64_t, int64_t>>& writes,
                          int64_t elements, bool last_only) {
  std::vector<Round> rounds;
  std::vector<int64_t> count(elements, 0);
  for (const auto& [target, from] : writes) {
    const int64_t r = last_only ? 0 : count[target]++;
    if (r >= static_cast<int64_t>(rounds.size())) rounds.push_back({std::vector<int64_t>(elements, -1)});
    rounds[r].source[target] = from;
    rounds[r].any = true;
  }
  return rounds;
}

// Applies every round to `data`: where(written, combine(result, moved), result)
// with moved = gather(flatten(updates), source) and combine the reduction.
absl::StatusOr<NodeId> EmitScatter(NodeContext& ctx, NodeId data, NodeId updates,
                                   const std::vector<std::pair<int64_t, int64_t>>& writes) {
  RK_ASSIGN_OR_RETURN(std::string reduction, ctx.AttrString("reduction", "none"));
  const Op combine = reduction == "add" ? Op::kAdd
                     : reduction == "mul" ? Op::kMul
                     : reduction == "max" ? Op::kMaximum
                                          : Op::kMinimum;
  const Shape shape = ctx.type(data).shape;  // a copy: Emit grows the type table
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshape(ctx, updates, {ctx.type(updates).num_elements()}));
  NodeId result = data;
  for (const Round& round : Rounds(writes, shape.num_elements(), reduction == "none")) {
    HostTensor written(TensorType(DType::kBool, shape));
    HostTensor from(TensorType(DType::kI64, shape));
    bool all_written = true;
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      written.SetInt(e, round.source[e] >= 0);
      from.SetInt(e, round.source[e] >= 0 ? round.source[e] : 0);
      all_written = all_written && round.source[e] >= 0;
    }
    RK_ASSIGN_OR_RETURN(NodeId positions, ctx.EmitConstant(std::move(from)));
    RK_ASSIGN_OR_RETURN(NodeId moved, GatherFlat(ctx, flat, positions));
    if (reduction != "none") {
      RK_ASSIGN_OR_RETURN(moved, ctx.Emit(combine, {result, moved}));
    }
    if (all_written) {
      result = moved;
      continue;
    }
    RK_ASSIGN_OR_RETURN(NodeId mask, ctx.EmitConstant(std::move(written)));
    RK_ASSIGN_OR_RETURN(result, ctx.Emit(Op::kWhere, {mask, moved, result}));
  }
  return result;
}

absl::Status CheckScatterOperands(NodeContext& ctx, NodeId data, NodeId updates) {
  RK_ASSIGN_OR_RETURN(std::string reduction, ctx.AttrString("reduction", "none"));
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min") {
    return ctx.Unsupported(absl::StrCat("reduction '", reduction, "'"));
  }
  if (ctx.type(updates).dtype != ctx.type(data).dtype) {
    return ctx.Error(absl::StrCat("updates ", ctx.type(updates).ToString(), " and data ",
                                  ctx.type(data).ToString(), " differ in dtype"));
  }
  if (ctx.type(data).num_elements() > kMaxScatterElements ||
      ctx.type(updates).num_elements() > kMaxScatterElements) {
    return ctx.Unsupported(absl::StrCat("data or updates of more than ", kMaxScatterElements,
                                        " elements"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ConvertGatherElements(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId data, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId indices, ctx.Input(1));
  const std::vector<int64_t> data_dims = ctx.type(data).shape.dims();
  const std::vector<int64_t> index_dims = ctx.type(indices).shape.dims();
  const int rank = static_cast<int>(data_dims.size());
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", 0));
  if (rank < 1) return ctx.Error("data must have rank >= 1");
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, rank));
  if (static_cast<int>(index_dims.size()) != rank) {
    return ctx.Error(absl::StrCat("indices ", ctx.type(indices).ToString(),
                                  " must have the data's rank ", rank));
  }
  for (int d = 0; d < rank; ++d) {
    if (d != axis && index_dims[d] > data_dims[d]) {
      return ctx.Error(absl::StrCat("indices ", ctx.type(indices).ToString(), " exceed data ",
                                    ctx.type(data).ToString(), " in dim ", d));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(data_dims);
  std::vector<int64_t> weights = strides;
  weights[axis] = 0;
  RK_ASSIGN_OR_RETURN(NodeId k, ToI64(ctx, indices));
  NodeId valid;
  RK_ASSIGN_OR_RETURN(NodeId wrapped, WrapIndex(ctx, k, data_dims[axis], valid));
  RK_ASSIGN_OR_RETURN(NodeId stride, ctx.Scalar(DType::kI64, static_cast<double>(strides[axis])));
  RK_ASSIGN_OR_RETURN(NodeId along, ctx.Emit(Op::kMul, {wrapped, stride}));
  RK_ASSIGN_OR_RETURN(NodeId base, PositionConstant(ctx, index_dims, weights));
  RK_ASSIGN_OR_RETURN(NodeId positions, ctx.Emit(Op::kAdd, {base, along}));
  const int64_t total = ctx.type(data).num_elements();
  RK_ASSIGN_OR_RETURN(positions, OutOfRangeWhereInvalid(ctx, valid, positions, total));
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshape(ctx, data, {total}));
  RK_ASSIGN_OR_RETURN(NodeId r, GatherFlat(ctx, flat, positions));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertGatherND(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId data, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId indices, ctx.Input(1));
  const std::vector<int64_t> data_dims = ctx.type(data).shape.dims();
  const std::vector<int64_t> index_dims = ctx.type(indices).shape.dims();
  const int rank = static_cast<int>(data_dims.size());
  const int q = static_cast<int>(index_dims.size());
  RK_ASSIGN_OR_RETURN(int64_t b, ctx.AttrInt("batch_dims", 0));
  if (q < 1 || rank < 1) return ctx.Error("data and indices must have rank >= 1");
  const int64_t k = index_dims[q - 1];
  if (b < 0 || b >= q || b >= rank) {
    return ctx.Error(absl::StrCat("batch_dims ", b, " must be below both ranks"));
  }
  if (k < 1 || b + k > rank) {
    return ctx.Error(absl::StrCat("indices' last dim ", k, " must be in [1, ", rank - b, "]"));
  }
  for (int d = 0; d < b; ++d) {
    if (index_dims[d] != data_dims[d]) {
      return ctx.Error(absl::StrCat("batch dim ", d, " differs: data ", ctx.type(data).ToString(),
                                    ", indices ", ctx.type(indices).ToString()));
    }
  }
  // Data as [batch * indexed rows, rest...]; the row of an index tuple is
  // batch * rows + sum of its coordinates times their strides.
  const int64_t rows = Product(data_dims, b, b + k);
  std::vector<int64_t> flat_dims = {Product(data_dims, 0, b) * rows};
  flat_dims.insert(flat_dims.end(), data_dims.begin() + b + k, data_dims.end());
  const std::vector<int64_t> prefix(index_dims.begin(), index_dims.end() - 1);
  std::vector<int64_t> weights(prefix.size(), 0);
  {
    const std::vector<int64_t> batch(data_dims.begin(), data_dims.begin() + b);
    const std::vector<int64_t> batch_strides = RowMajorStrides(batch);
    for (int d = 0; d < b; ++d) weights[d] = batch_strides[d] * rows;
  }
  const std::vector<int64_t> coord_dims(data_dims.begin() + b, data_dims.begin() + b + k);
  const std::vector<int64_t> coord_strides = RowMajorStrides(coord_dims);
  RK_ASSIGN_OR_RETURN(NodeId all, ToI64(ctx, indices));
  RK_ASSIGN_OR_RETURN(NodeId positions, PositionConstant(ctx, prefix, weights));
  NodeId valid;
  for (int64_t j = 0; j < k; ++j) {
    Attributes slice;
    std::vector<int64_t> start(q, 0), limit = index_dims, stride(q, 1);
    start[q - 1] = j;
    limit[q - 1] = j + 1;
    slice.Set("start", std::move(start));
    slice.Set("limit", std::move(limit));
    slice.Set("stride", std::move(stride));
    RK_ASSIGN_OR_RETURN(NodeId column, ctx.Emit(Op::kSlice, {all}, std::move(slice)));
    RK_ASSIGN_OR_RETURN(column, Reshape(ctx, column, prefix));
    NodeId in_range;
    RK_ASSIGN_OR_RETURN(NodeId wrapped, WrapIndex(ctx, column, coord_dims[j], in_range));
    RK_ASSIGN_OR_RETURN(NodeId stride_j,
                        ctx.Scalar(DType::kI64, static_cast<double>(coord_strides[j])));
    RK_ASSIGN_OR_RETURN(NodeId term, ctx.Emit(Op::kMul, {wrapped, stride_j}));
    RK_ASSIGN_OR_RETURN(positions, ctx.Emit(Op::kAdd, {positions, term}));
    if (j == 0) {
      valid = in_range;
    } else {
      RK_ASSIGN_OR_RETURN(valid, ctx.Emit(Op::kAnd, {valid, in_range}));
    }
  }
  RK_ASSIGN_OR_RETURN(positions, OutOfRangeWhereInvalid(ctx, valid, positions, flat_dims[0]));
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshape(ctx, data, flat_dims));
  RK_ASSIGN_OR_RETURN(NodeId r, GatherFlat(ctx, flat, positions));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertScatterND(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId data, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId updates, ctx.Input(2));
  RK_RETURN_IF_ERROR(CheckScatterOperands(ctx, data, updates));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> index, ctx.ConstantInts(1));
  RK_ASSIGN_OR_RETURN(NodeId indices_node, ctx.Input(1));
  const std::vector<int64_t> data_dims = ctx.type(data).shape.dims();
  const std::vector<int64_t> index_dims = ctx.type(indices_node).shape.dims();
  const std::vector<int64_t> update_dims = ctx.type(updates).shape.dims();
  const int rank = static_cast<int>(data_dims.size());
  const int q = static_cast<int>(index_dims.size());
  if (q < 1 || rank < 1) return ctx.Error("data and indices must have rank >= 1");
  const int64_t k = index_dims[q - 1];
  if (k < 1 || k > rank) return ctx.Error(absl::StrCat("indices' last dim ", k, " must be in [1, ", rank, "]"));
  std::vector<int64_t> expected(index_dims.begin(), index_dims.end() - 1);
  expected.insert(expected.end(), data_dims.begin() + k, data_dims.end());
  if (update_dims != expected) {
    return ctx.Error(absl::StrCat("updates ", ctx.type(updates).ToString(), " must have shape [",
                                  absl::StrJoin(expected, ","), "]"));
  }
  const int64_t slice = Product(data_dims, k, rank);
  const std::vector<int64_t> strides = RowMajorStrides(data_dims);
  std::vector<std::pair<int64_t, int64_t>> writes;
  const int64_t tuples = Product(index_dims, 0, q - 1);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t start = 0;
    for (int64_t j = 0; j < k; ++j) {
      RK_ASSIGN_OR_RETURN(int64_t p, KnownPosition(ctx, index[t * k + j], data_dims[j]));
      start += p * strides[j];
    }
    for (int64_t s = 0; s < slice; ++s) writes.push_back({start + s, t * slice + s});
  }
  RK_ASSIGN_OR_RETURN(NodeId r, EmitScatter(ctx, data, updates, writes));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

absl::Status ConvertScatterElements(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(NodeId data, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId updates, ctx.Input(2));
  RK_RETURN_IF_ERROR(CheckScatterOperands(ctx, data, updates));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> index, ctx.ConstantInts(1));
  RK_ASSIGN_OR_RETURN(NodeId indices_node, ctx.Input(1));
  const std::vector<int64_t> data_dims = ctx.type(data).shape.dims();
  const std::vector<int64_t> index_dims = ctx.type(indices_node).shape.dims();
  const int rank = static_cast<int>(data_dims.size());
  RK_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.AttrInt("axis", 0));
  if (rank < 1) return ctx.Error("data must have rank >= 1");
  RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(axis_attr, rank));
  if (ctx.type(updates).shape.dims() != index_dims) {
    return ctx.Error(absl::StrCat("updates ", ctx.type(updates).ToString(),
                                  " must have the indices' shape ",
                                  ctx.type(indices_node).ToString()));
  }
  if (static_cast<int>(index_dims.size()) != rank) {
    return ctx.Error(absl::StrCat("indices ", ctx.type(indices_node).ToString(),
                                  " must have the data's rank ", rank));
  }
  for (int d = 0; d < rank; ++d) {
    if (d != axis && index_dims[d] > data_dims[d]) {
      return ctx.Error(absl::StrCat("indices ", ctx.type(indices_node).ToString(),
                                    " exceed data ", ctx.type(data).ToString(), " in dim ", d));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(data_dims);
  const std::vector<int64_t> index_strides = RowMajorStrides(index_dims);
  std::vector<std::pair<int64_t, int64_t>> writes;
  for (int64_t u = 0; u < static_cast<int64_t>(index.size()); ++u) {
    int64_t target = 0;
    for (int d = 0; d < rank; ++d) {
      int64_t coord = (u / index_strides[d]) % index_dims[d];
      if (d == axis) {
        RK_ASSIGN_OR_RETURN(coord, KnownPosition(ctx, index[u], data_dims[axis]));
      }
      target += coord * strides[d];
    }
    writes.push_back({target, u});
  }
  RK_ASSIGN_OR_RETURN(NodeId r, EmitScatter(ctx, data, updates, writes));
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
