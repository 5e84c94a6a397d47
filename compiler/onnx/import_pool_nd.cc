// MaxPool and AveragePool over 1 or 3 spatial dims, through the 2-D pools.
// A box window is separable: a 1-D pool is a 2-D pool over a height of 1; a
// 3-D pool pools H and W first (depth folded into the channels), then D
// (H and W folded into one axis, window 1 there). Max is exact that way;
// average is too in value, since the real taps of a box are the product of
// the real taps per axis (count_include_pad=0) and the window size the
// product of the kernel's extents (=1), but rounds twice instead of once.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

struct PoolNd {
  std::vector<int64_t> kernel, strides, pads, dilations;  // pads: begins, then ends
};

absl::StatusOr<NodeId> Reshaped(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

// One 2-D pool of x [N, C, H, W] over axes (a, b) of `p`; `a` < 0 is a
// window of 1 along H.
absl::StatusOr<NodeId> Pool2d(NodeContext& ctx, Op op, NodeId x, const PoolNd& p, int a, int b,
                              bool max, bool count_include_pad) {
  const int n = static_cast<int>(p.kernel.size());
  auto at = [&](const std::vector<int64_t>& v, int axis, int64_t fill) {
    return axis < 0 ? fill : v[axis];
  };
  Attributes attrs;
  attrs.Set("kernel", std::vector<int64_t>{at(p.kernel, a, 1), p.kernel[b]});
  attrs.Set("strides", std::vector<int64_t>{at(p.strides, a, 1), p.strides[b]});
  attrs.Set("pads", std::vector<int64_t>{a < 0 ? 0 : p.pads[a], p.pads[b],
                                         a < 0 ? 0 : p.pads[a + n], p.pads[b + n]});
  if (max) {
    attrs.Set("dilations", std::vector<int64_t>{at(p.dilations, a, 1), p.dilations[b]});
  } else {
    attrs.Set("count_include_pad", count_include_pad);
  }
  return ctx.Emit(op, {x}, std::move(attrs));
}

}  // namespace

absl::Status ConvertPoolNd(NodeContext& ctx) {
  const bool max = ctx.node().op_type() == "MaxPool";
  RK_ASSIGN_OR_RETURN(Op op, OpNamed(ctx, max ? "max_pool2d" : "avg_pool2d"));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const std::vector<int64_t> dims = ctx.type(x).shape.dims();
  const int rank = static_cast<int>(dims.size());
  if (rank != 3 && rank != 5) return ctx.Unsupported(absl::StrCat(rank - 2, "-D pooling"));
  const int n = rank - 2;
  PoolNd p;
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> kernel, ctx.AttrInts("kernel_shape"));
  if (!kernel.has_value()) return ctx.Error("no kernel_shape");
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> strides, ctx.AttrInts("strides"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> pads, ctx.AttrInts("pads"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dilations, ctx.AttrInts("dilations"));
  p.kernel = *kernel;
  p.strides = strides.value_or(std::vector<int64_t>(n, 1));
  p.pads = pads.value_or(std::vector<int64_t>(2 * n, 0));
  p.dilations = dilations.value_or(std::vector<int64_t>(n, 1));
  if (static_cast<int>(p.kernel.size()) != n || static_cast<int>(p.strides.size()) != n ||
      static_cast<int>(p.dilations.size()) != n || static_cast<int>(p.pads.size()) != 2 * n) {
    return ctx.Error(absl::StrCat("kernel_shape, strides, dilations and pads must be for ", n,
                                  " spatial dims"));
  }
  for (int k = 0; k < n; ++k) {
    if (p.kernel[k] < 1 || p.strides[k] < 1 || p.dilations[k] < 1) {
      return ctx.Error("kernel_shape, strides and dilations must be >= 1");
    }
  }
  RK_ASSIGN_OR_RETURN(std::string auto_pad, ctx.AttrString("auto_pad", "NOTSET"));
  if (auto_pad == "VALID") {
    p.pads.assign(2 * n, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int k = 0; k < n; ++k) {
      const int64_t in = dims[2 + k];
      const int64_t out = (in + p.strides[k] - 1) / p.strides[k];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * p.strides[k] + (p.kernel[k] - 1) * p.dilations[k] + 1 - in);
      p.pads[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      p.pads[k + n] = total - p.pads[k];
    }
  } else if (auto_pad != "NOTSET") {
    return ctx.Unsupported(absl::StrCat("auto_pad '", auto_pad, "'"));
  }
  RK_ASSIGN_OR_RETURN(int64_t include, ctx.AttrInt("count_include_pad", 0));
  RK_ASSIGN_OR_RETURN(int64_t ceil_mode, ctx.AttrInt("ceil_mode", 0));
  if (!max) {
    for (int64_t d : p.dilations) {
      if (d != 1) return ctx.Unsupported("dilated average pooling");
    }
  }
  if (ceil_mode != 0) {
    RK_RETURN_IF_ERROR(ApplyCeilMode(ctx, ctx.type(x).shape, p.kernel, p.strides, p.dilations,
                                     !max && include != 0, p.pads));
  }
  NodeId r;
  if (n == 1) {
    RK_ASSIGN_OR_RETURN(NodeId x4, Reshaped(ctx, x, {dims[0], dims[1], 1, dims[2]}));
    RK_ASSIGN_OR_RETURN(r, Pool2d(ctx, op, x4, p, -1, 0, max, include != 0));
    const std::vector<int64_t> out = ctx.type(r).shape.dims();
    RK_ASSIGN_OR_RETURN(r, Reshaped(ctx, r, {out[0], out[1], out[3]}));
  } else {
    // H and W over [N, C*D, H, W], then D over [N, C, D, H'*W'].
    RK_ASSIGN_OR_RETURN(NodeId hw, Reshaped(ctx, x, {dims[0], dims[1] * dims[2], dims[3], dims[4]}));
    RK_ASSIGN_OR_RETURN(hw, Pool2d(ctx, op, hw, p, 1, 2, max, include != 0));
    const int64_t h = ctx.type(hw).shape.dim(2), w = ctx.type(hw).shape.dim(3);
    RK_ASSIGN_OR_RETURN(NodeId d, Reshaped(ctx, hw, {dims[0], dims[1], dims[2], h * w}));
    PoolNd depth = p;
    depth.kernel = {p.kernel[0], 1};
    depth.strides = {p.strides[0], 1};
    depth.dilations = {p.dilations[0], 1};
    depth.pads = {p.pads[0], 0, p.pads[n], 0};
    RK_ASSIGN_OR_RETURN(d, Pool2d(ctx, op, d, depth, 0, 1, max, include != 0));
    RK_ASSIGN_OR_RETURN(r, Reshaped(ctx, d, {dims[0], dims[1], ctx.type(d).shape.dim(2), h, w}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
