// Reference kernels for reductions (reduce_sum/mean/max/min over any set of
// axes, argmax), the cumsum scan and the composites, which reduce along one
// axis: softmax,
// log_softmax, layer_norm, rms_norm; gelu lives here too as the one
// elementwise composite. All accumulate in double (int64 for integers) and
// round once when the result is stored.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/reference/kernels.h"

namespace rk::compiler::reference_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

absl::StatusOr<int> Axis(const Node& node, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(OpLabel(node.op), ": axis ", axis,
                                                   " out of range for rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::StatusOr<bool> KeepDim(const Node& node) {
  if (!node.attrs.Has("keepdim")) return false;
  return node.attrs.GetBool("keepdim");
}

// The row decomposition of a shape around one axis: element (o, k, i) lives at
// (o * dim + k) * inner + i.
struct Rows {
  int64_t outer = 1, dim = 1, inner = 1;
  int64_t at(int64_t o, int64_t k, int64_t i) const { return (o * dim + k) * inner + i; }
};

Rows RowsAround(const Shape& shape, int axis) {
  Rows r;
  for (int d = 0; d < axis; ++d) r.outer *= shape.dim(d);
  r.dim = shape.dim(axis);
  for (int d = axis + 1; d < shape.rank(); ++d) r.inner *= shape.dim(d);
  return r;
}

absl::Status CheckResultShape(const Node& node, const std::vector<int64_t>& dims) {
  if (Shape(dims) == node.type.shape) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(OpLabel(node.op), ": computed result shape ",
                                          Shape(dims).ToString(), " but the node declares ",
                                          node.type.shape.ToString()));
}

// For every input element, the flat index of the output element it reduces
// into; `out_dims` receives the result shape.
absl::StatusOr<std::vector<int64_t>> ReductionTargets(const Node& node, const Shape& in,
                                                      std::vector<int64_t>* out_dims) {
  absl::StatusOr<std::vector<int64_t>> axes = node.attrs.GetInts("axes");
  if (!axes.ok()) return axes.status();
  absl::StatusOr<bool> keepdim = KeepDim(node);
  if (!keepdim.ok()) return keepdim.status();
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t a : *axes) {
    absl::StatusOr<int> axis = Axis(node, a, in.rank());
    if (!axis.ok()) return axis.status();
    reduced[*axis] = true;
  }
  out_dims->clear();
  std::vector<int64_t> kept;  // input dims that survive, in order
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      out_dims->push_back(in.dim(d));
      kept.push_back(d);
    } else if (*keepdim) {
      out_dims->push_back(1);
    }
  }
  std::vector<int64_t> strides(in.rank(), 0);
  int64_t stride = 1;
  for (int j = static_cast<int>(kept.size()) - 1; j >= 0; --j) {
    strides[kept[j]] = stride;
    stride *= in.dim(kept[j]);
  }
  if (absl::Status s = CheckResultShape(node, *out_dims); !s.ok()) return s;
  return StridedIndices(in.dims(), strides);
}

absl::StatusOr<HostTensor> ReduceFloat(const Node& node, const HostTensor& x,
                                       const std::vector<int64_t>& target) {
  HostTensor out(node.type);
  const int64_t n = out.num_elements();
  double init = 0.0;
  if (node.op == Op::kReduceMax) init = -kInf;
  if (node.op == Op::kReduceMin) init = kInf;
  std::vector<double> acc(n, init);
  std::vector<double> v = ReadDoubles(x);
  for (size_t i = 0; i < v.size(); ++i) {
    double& a = acc[target[i]];
    switch (node.op) {
      case Op::kReduceMax:
        if (std::isnan(v[i]) || v[i] > a) a = std::isnan(a) ? a : v[i];
        break;
      case Op::kReduceMin:
        if (std::isnan(v[i]) || v[i] < a) a = std::isnan(a) ? a : v[i];
        break;
      default: a += v[i]; break;
    }
  }
  if (node.op == Op::kReduceMean) {
    const double count = n == 0 ? 0.0 : static_cast<double>(x.num_elements() / n);
    for (double& a : acc) a /= count;
  }
  WriteDoubles(out, acc);
  return out;
}

absl::StatusOr<HostTensor> ReduceInt(const Node& node, const HostTensor& x,
                                     const std::vector<int64_t>& target) {
  HostTensor out(node.type);
  const int64_t n = out.num_elements();
  int64_t init = 0;
  if (node.op == Op::kReduceMax) init = std::numeric_limits<int64_t>::min();
  if (node.op == Op::kReduceMin) init = std::numeric_limits<int64_t>::max();
  if (x.dtype() == DType::kI32 && node.op == Op::kReduceMax) init = std::numeric_limits<int32_t>::min();
  if (x.dtype() == DType::kI32 && node.op == Op::kReduceMin) init = std::numeric_limits<int32_t>::max();
  std::vector<int64_t> acc(n, init);
  std::vector<int64_t> v = ReadInts(x);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t& a = acc[target[i]];
    switch (node.op) {
      case Op::kReduceMax: a = v[i] > a ? v[i] : a; break;
      case Op::kReduceMin: a = v[i] < a ? v[i] : a; break;
      default:
        a = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v[i]));
        break;
    }
  }
  WriteInts(out, acc);
  return out;
}

absl::StatusOr<HostTensor> Argmax(const Node& node, const HostTensor& x) {
  absl::StatusOr<int64_t> axis_attr = node.attrs.GetInt("axis");
  if (!axis_attr.ok()) return axis_attr.status();
  absl::StatusOr<int> axis = Axis(node, *axis_attr, x.shape().rank());
  if (!axis.ok()) return axis.status();
  absl::StatusOr<bool> keepdim = KeepDim(node);
  if (!keepdim.ok()) return keepdim.status();
  std::vector<int64_t> dims;
  for (int d = 0; d < x.shape().rank(); ++d) {
    if (d != *axis) dims.push_back(x.shape().dim(d));
    else if (*keepdim) dims.push_back(1);
  }
  if (absl::Status s = CheckResultShape(node, dims); !s.ok()) return s;
  const Rows rows = RowsAround(x.shape(), *axis);
  std::vector<int64_t> result(rows.outer * rows.inner, 0);
  const bool is_float = IsFloat(x.dtype());
  std::vector<double> vf = is_float ? ReadDoubles(x) : std::vector<double>();
  std::vector<int64_t> vi = is_float ? std::vector<int64_t>() : ReadInts(x);
  for (int64_t o = 0; o < rows.outer; ++o) {
    for (int64_t i = 0; i < rows.inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < rows.dim; ++k) {
        const int64_t at = rows.at(o, k, i), best_at = rows.at(o, best, i);
        if (is_float) {
          if (std::isnan(vf[best_at])) break;  // the first NaN is the maximum
          if (std::isnan(vf[at]) || vf[at] > vf[best_at]) best = k;
        } else if (vi[at] > vi[best_at]) {
          best = k;
        }
      }
      result[o * rows.inner + i] = best;
    }
  }
  HostTensor out(node.type);
  WriteInts(out, result);
  return out;
}

absl::StatusOr<Rows> CompositeRows(const Node& node, const HostTensor& x) {
  if (x.shape() != node.type.shape) {
    return absl::InternalError(absl::StrCat(OpLabel(node.op), ": operand shape ",
                                            x.shape().ToString(), " differs from the result's"));
  }
  absl::StatusOr<int64_t> axis_attr = node.attrs.GetInt("axis");
  if (!axis_attr.ok()) return axis_attr.status();
  absl::StatusOr<int> axis = Axis(node, *axis_attr, x.shape().rank());
  if (!axis.ok()) return axis.status();
  return RowsAround(x.shape(), *axis);
}

// A running sum along each row (double, or int64 wrapping for integers), in
// scan order: from the last element with `reverse`. Each element gets the sum
// before adding itself (exclusive) or after (inclusive).
template <typename T, typename Add>
std::vector<T> Cumsum(const std::vector<T>& v, const Rows& rows, bool exclusive, bool reverse,
                      Add add) {
  std::vector<T> r(v.size());
  for (int64_t o = 0; o < rows.outer; ++o) {
    for (int64_t i = 0; i < rows.inner; ++i) {
      T acc = 0;
      for (int64_t step = 0; step < rows.dim; ++step) {
        const int64_t at = rows.at(o, reverse ? rows.dim - 1 - step : step, i);
        if (exclusive) r[at] = acc;
        acc = add(acc, v[at]);
        if (!exclusive) r[at] = acc;
      }
    }
  }
  return r;
}

// softmax and log_softmax, stabilized by subtracting the row maximum.
absl::StatusOr<HostTensor> Softmax(const Node& node, const HostTensor& x) {
  absl::StatusOr<Rows> rows = CompositeRows(node, x);
  if (!rows.ok()) return rows.status();
  std::vector<double> v = ReadDoubles(x);
  const bool log = node.op == Op::kLogSoftmax;
  for (int64_t o = 0; o < rows->outer; ++o) {
    for (int64_t i = 0; i < rows->inner; ++i) {
      double max = -kInf;
      for (int64_t k = 0; k < rows->dim; ++k) {
        const double e = v[rows->at(o, k, i)];
        if (std::isnan(e) || e > max) max = std::isnan(max) ? max : e;
      }
      double sum = 0.0;
      for (int64_t k = 0; k < rows->dim; ++k) sum += std::exp(v[rows->at(o, k, i)] - max);
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < rows->dim; ++k) {
        double& e = v[rows->at(o, k, i)];
        e = log ? (e - max) - log_sum : std::exp(e - max) / sum;
      }
    }
  }
  HostTensor out(node.type);
  WriteDoubles(out, v);
  return out;
}

// layer_norm (x, gamma, beta) and rms_norm (x, gamma) along `axis`, with the
// biased variance; gamma and beta broadcast against x.
absl::StatusOr<HostTensor> Norm(const Node& node, absl::Span<const HostTensor> operands) {
  const bool layer = node.op == Op::kLayerNorm;
  if (operands.size() != (layer ? 3u : 2u)) {
    return absl::InternalError(absl::StrCat(OpLabel(node.op), ": wrong operand count"));
  }
  const HostTensor& x = operands[0];
  absl::StatusOr<Rows> rows = CompositeRows(node, x);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<double> eps = node.attrs.GetFloat("eps");
  if (!eps.ok()) return eps.status();
  absl::StatusOr<std::vector<int64_t>> ig = BroadcastIndices(operands[1].shape(), x.shape());
  if (!ig.ok()) return ig.status();
  std::vector<double> gamma = ReadDoubles(operands[1]);
  std::vector<int64_t> ib;
  std::vector<double> beta;
  if (layer) {
    absl::StatusOr<std::vector<int64_t>> indices =
        BroadcastIndices(operands[2].shape(), x.shape());
    if (!indices.ok()) return indices.status();
    ib = *std::move(indices);
    beta = ReadDoubles(operands[2]);
  }
  std::vector<double> v = ReadDoubles(x);
  std::vector<double> r(v.size());
  const double n = static_cast<double>(rows->dim);
  for (int64_t o = 0; o < rows->outer; ++o) {
    for (int64_t i = 0; i < rows->inner; ++i) {
      double mean = 0.0;
      if (layer) {
        for (int64_t k = 0; k < rows->dim; ++k) mean += v[rows->at(o, k, i)];
        mean /= n;
        // Every implementation below f64 subtracts a mean held in f32 (the
        // compiler's lowering computes f16/bf16/f32 composites in f32). Where
        // a row is nearly constant, eps dominates the variance and that
        // rounding is scaled up by 1/sqrt(eps); a reference that kept the mean
        // in double would be far more exact than any f32 program can be.
        if (node.type.dtype != DType::kF64) mean = static_cast<float>(mean);
      }
      double second_moment = 0.0;  // variance about `mean` (0 for rms_norm)
      for (int64_t k = 0; k < rows->dim; ++k) {
        const double d = v[rows->at(o, k, i)] - mean;
        second_moment += d * d;
      }
      const double scale = 1.0 / std::sqrt(second_moment / n + *eps);
      for (int64_t k = 0; k < rows->dim; ++k) {
        const int64_t at = rows->at(o, k, i);
        double y = (v[at] - mean) * scale * gamma[(*ig)[at]];
        if (layer) y += beta[ib[at]];
        r[at] = y;
      }
    }
  }
  HostTensor out(node.type);
  WriteDoubles(out, r);
  return out;
}

}  // namespace

absl::StatusOr<HostTensor> EvalReduce(const Node& node, absl::Span<const HostTensor> operands) {
  if (operands.size() != 1) return absl::InternalError("reduction: expected one operand");
  const HostTensor& x = operands[0];
  if (node.op == Op::kArgmax) return Argmax(node, x);
  std::vector<int64_t> out_dims;
  absl::StatusOr<std::vector<int64_t>> target = ReductionTargets(node, x.shape(), &out_dims);
  if (!target.ok()) return target.status();
  return IsFloat(x.dtype()) ? ReduceFloat(node, x, *target) : ReduceInt(node, x, *target);
}

absl::StatusOr<HostTensor> EvalScan(const Node& node, absl::Span<const HostTensor> operands) {
  if (operands.size() != 1) return absl::InternalError("cumsum: expected one operand");
  const HostTensor& x = operands[0];
  if (absl::Status s = ExpectType(x, node.type, "cumsum"); !s.ok()) return s;
  absl::StatusOr<Rows> rows = CompositeRows(node, x);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<bool> exclusive = node.attrs.GetBool("exclusive");
  if (!exclusive.ok()) return exclusive.status();
  absl::StatusOr<bool> reverse = node.attrs.GetBool("reverse");
  if (!reverse.ok()) return reverse.status();
  HostTensor out(node.type);
  if (IsFloat(x.dtype())) {
    WriteDoubles(out, Cumsum(ReadDoubles(x), *rows, *exclusive, *reverse,
                             [](double a, double b) { return a + b; }));
  } else {
    WriteInts(out, Cumsum(ReadInts(x), *rows, *exclusive, *reverse, [](int64_t a, int64_t b) {
                return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
              }));
  }
  return out;
}

absl::StatusOr<HostTensor> EvalComposite(const Node& node,
                                         absl::Span<const HostTensor> operands) {
  switch (node.op) {
    case Op::kGelu: {
      if (operands.size() != 1) return absl::InternalError("gelu: expected one operand");
      if (absl::Status s = ExpectType(operands[0], node.type, "gelu"); !s.ok()) return s;
      std::vector<double> v = ReadDoubles(operands[0]);
      for (double& e : v) e = 0.5 * e * (1.0 + std::erf(e * M_SQRT1_2));
      HostTensor out(node.type);
      WriteDoubles(out, v);
      return out;
    }
    case Op::kSoftmax:
    case Op::kLogSoftmax:
      if (operands.size() != 1) return absl::InternalError("softmax: expected one operand");
      return Softmax(node, operands[0]);
    case Op::kLayerNorm:
    case Op::kRmsNorm: return Norm(node, operands);
    default:
      return absl::InternalError(absl::StrCat(OpLabel(node.op), ": not a composite op"));
  }
}

}  // namespace rk::compiler::reference_internal
