#include "compiler/ir/window.h"

#include <vector>

namespace rk::compiler {
namespace {

// Copies `name` into `out` when it has exactly `n` entries.
void ReadInts(const Attributes& attrs, const char* name, size_t n, int64_t* out) {
  absl::StatusOr<std::vector<int64_t>> values = attrs.GetInts(name);
  if (!values.ok() || values->size() != n) return;
  for (size_t i = 0; i < n; ++i) out[i] = (*values)[i];
}

}  // namespace

int64_t Window2d::OutputSize(int axis, int64_t in) const {
  const int64_t padded = in + pad_before[axis] + pad_after[axis];
  const int64_t span = Span(axis);
  if (stride[axis] < 1 || span < 1 || padded < span) return -1;
  return (padded - span) / stride[axis] + 1;
}

bool Window2d::ReadsPaddingAfter(int axis, int64_t in) const {
  const int64_t out = OutputSize(axis, in);
  if (out < 1) return false;
  // The last position the last window reads, in padded coordinates.
  const int64_t last = (out - 1) * stride[axis] + Span(axis) - 1;
  return last >= pad_before[axis] + in;
}

bool Window2d::EveryWindowReal(int axis, int64_t in) const {
  const int64_t out = OutputSize(axis, in);
  for (int64_t o = 0; o < out; ++o) {
    bool real = false;
    for (int64_t t = 0; t < kernel[axis] && !real; ++t) {
      const int64_t p = o * stride[axis] - pad_before[axis] + t * dilation[axis];
      real = p >= 0 && p < in;
    }
    if (!real) return false;
  }
  return true;
}

bool IsWindowOp(Op op) { return GetOpKind(op) == OpKind::kWindow; }

Window2d ReadWindow(Op op, const Attributes& attrs, const Shape& weights) {
  Window2d w;
  if (op == Op::kConv2d) {
    if (weights.rank() == 4) {
      w.kernel[0] = weights.dim(2);
      w.kernel[1] = weights.dim(3);
    }
    w.groups = attrs.GetInt("groups").value_or(1);
  } else {
    ReadInts(attrs, "kernel", 2, w.kernel);
  }
  ReadInts(attrs, "strides", 2, w.stride);
  int64_t pads[4] = {0, 0, 0, 0};
  ReadInts(attrs, "pads", 4, pads);
  w.pad_before[0] = pads[0];
  w.pad_before[1] = pads[1];
  w.pad_after[0] = pads[2];
  w.pad_after[1] = pads[3];
  ReadInts(attrs, "dilations", 2, w.dilation);
  w.count_include_pad = attrs.GetBool("count_include_pad").value_or(false);
  return w;
}

}  // namespace rk::compiler
