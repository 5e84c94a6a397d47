// ONNX Conv over 3 spatial dims as a sum of 2-D convolutions, one per
// depth tap of the kernel: the input, zero-padded along depth, is sliced at
// that tap's depth positions (every output depth's, strided), those slices
// become the batch of a conv2d with the tap's [O, C/g, kH, kW] weights, and
// the kD results are added. The sum rounds once per depth tap (a single 3-D
// convolution would round once).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

absl::StatusOr<NodeId> Reshaped(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Sliced(NodeContext& ctx, NodeId x, int axis, int64_t begin, int64_t end,
                              int64_t stride) {
  const std::vector<int64_t> dims = ctx.type(x).shape.dims();
  std::vector<int64_t> start(dims.size(), 0), limit = dims, step(dims.size(), 1);
  start[axis] = begin;
  limit[axis] = end;
  step[axis] = stride;
  Attributes attrs;
  attrs.Set("start", std::move(start));
  attrs.Set("limit", std::move(limit));
  attrs.Set("stride", std::move(step));
  return ctx.Emit(Op::kSlice, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Transposed(NodeContext& ctx, NodeId x, std::vector<int64_t> perm) {
  Attributes attrs;
  attrs.Set("perm", std::move(perm));
  return ctx.Emit(Op::kTranspose, {x}, std::move(attrs));
}

}  // namespace

absl::Status ConvertConv3d(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op conv, OpNamed(ctx, "conv2d"));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId w, ctx.Input(1));
  const std::vector<int64_t> xd = ctx.type(x).shape.dims();
  const std::vector<int64_t> wd = ctx.type(w).shape.dims();
  if (xd.size() != 5 || wd.size() != 5) {
    return ctx.Error("3-D convolution needs x [N,C,D,H,W] and w [O,C/g,kD,kH,kW]");
  }
  RK_ASSIGN_OR_RETURN(std::string auto_pad, ctx.AttrString("auto_pad", "NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    return ctx.Unsupported(absl::StrCat("auto_pad '", auto_pad, "' on a 3-D convolution"));
  }
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> s, ctx.AttrInts("strides"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> p, ctx.AttrInts("pads"));
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> d, ctx.AttrInts("dilations"));
  RK_ASSIGN_OR_RETURN(int64_t group, ctx.AttrInt("group", 1));
  const std::vector<int64_t> strides = s.value_or(std::vector<int64_t>{1, 1, 1});
  const std::vector<int64_t> dilations = d.value_or(std::vector<int64_t>{1, 1, 1});
  std::vector<int64_t> pads = p.value_or(std::vector<int64_t>(6, 0));
  if (auto_pad == "VALID") pads.assign(6, 0);
  if (strides.size() != 3 || dilations.size() != 3 || pads.size() != 6) {
    return ctx.Error("strides, dilations and pads must be for 3 spatial dims");
  }
  constexpr int64_t kMax = int64_t{1} << 31;
  for (int k = 0; k < 3; ++k) {
    if (strides[k] < 1 || dilations[k] < 1 || pads[k] < 0 || pads[k + 3] < 0 ||
        strides[k] > kMax || dilations[k] > kMax || pads[k] > kMax || pads[k + 3] > kMax) {
      return ctx.Error(absl::StrCat("strides and dilations must be in [1, ", kMax,
                                    "], pads in [0, ", kMax, "]"));
    }
  }
  const int64_t n = xd[0], c = xd[1], kd = wd[2];
  const int64_t padded = xd[2] + pads[0] + pads[3];
  const int64_t span = dilations[0] * (kd - 1) + 1;
  if (kd < 1 || padded < span) {
    return ctx.Error(absl::StrCat("a depth window spanning ", span, " does not fit in ", padded));
  }
  const int64_t depth_out = (padded - span) / strides[0] + 1;
  NodeId xp = x;
  if (pads[0] > 0 || pads[3] > 0) {
    Attributes attrs;
    attrs.Set("pads", std::vector<int64_t>{0, 0, pads[0], 0, 0, 0, 0, pads[3], 0, 0});
    attrs.Set("value", 0.0);
    RK_ASSIGN_OR_RETURN(xp, ctx.Emit(Op::kPad, {x}, std::move(attrs)));
  }
  Attributes conv_attrs;
  conv_attrs.Set("strides", std::vector<int64_t>{strides[1], strides[2]});
  conv_attrs.Set("pads", std::vector<int64_t>{pads[1], pads[2], pads[4], pads[5]});
  conv_attrs.Set("dilations", std::vector<int64_t>{dilations[1], dilations[2]});
  conv_attrs.Set("groups", group);
  NodeId sum;
  for (int64_t t = 0; t < kd; ++t) {
    const int64_t first = t * dilations[0];
    RK_ASSIGN_OR_RETURN(NodeId slab, Sliced(ctx, xp, 2, first,
                                            first + (depth_out - 1) * strides[0] + 1, strides[0]));
    RK_ASSIGN_OR_RETURN(slab, Transposed(ctx, slab, {0, 2, 1, 3, 4}));
    RK_ASSIGN_OR_RETURN(slab, Reshaped(ctx, slab, {n * depth_out, c, xd[3], xd[4]}));
    RK_ASSIGN_OR_RETURN(NodeId tap, Sliced(ctx, w, 2, t, t + 1, 1));
    RK_ASSIGN_OR_RETURN(tap, Reshaped(ctx, tap, {wd[0], wd[1], wd[3], wd[4]}));
    RK_ASSIGN_OR_RETURN(NodeId part, ctx.Emit(conv, {slab, tap}, conv_attrs));
    if (t == 0) {
      sum = part;
    } else {
      RK_ASSIGN_OR_RETURN(sum, ctx.Emit(Op::kAdd, {sum, part}));
    }
  }
  const std::vector<int64_t> sd = ctx.type(sum).shape.dims();
  RK_ASSIGN_OR_RETURN(NodeId r, Reshaped(ctx, sum, {n, depth_out, sd[1], sd[2], sd[3]}));
  RK_ASSIGN_OR_RETURN(r, Transposed(ctx, r, {0, 2, 1, 3, 4}));
  if (ctx.HasInput(2)) {
    RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(2));
    RK_ASSIGN_OR_RETURN(b, Reshaped(ctx, b, {ctx.type(b).num_elements(), 1, 1, 1}));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kAdd, {r, b}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
