// ONNX ConvTranspose (1-D and 2-D) lowered at import to conv2d: the input
// gets stride - 1 zeros between its elements along each spatial axis
// (unsqueeze, pad, reshape, slice), and a stride-1 convolution with the
// weights' kernel flipped and their in/out channels swapped per group reads
// it with padding dilation * (kernel - 1) - pad at each side (output_padding
// added at the end; negative padding crops). Output size per axis:
// stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - pads.
// output_shape and auto_pad SAME_* set the pads from the output wanted
// (output_shape, or in * stride for SAME): the total
// stride * (in - 1) + output_padding + dilation * (kernel - 1) + 1 - out is
// split with the odd one at the end for SAME_UPPER, at the start otherwise;
// a negative total (a larger output) all at the end.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

absl::StatusOr<NodeId> WithAttr(NodeContext& ctx, Op op, NodeId x, const char* name,
                                std::vector<int64_t> values) {
  Attributes attrs;
  attrs.Set(name, std::move(values));
  return ctx.Emit(op, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Reshaped(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  return WithAttr(ctx, Op::kReshape, x, "shape", std::move(dims));
}

// x[..., begin:end, ...] along `axis`.
absl::StatusOr<NodeId> SliceAxis(NodeContext& ctx, NodeId x, int axis, int64_t begin,
                                 int64_t end) {
  const std::vector<int64_t> dims = ctx.type(x).shape.dims();
  if (begin == 0 && end == dims[axis]) return x;
  std::vector<int64_t> start(dims.size(), 0), limit = dims, stride(dims.size(), 1);
  start[axis] = begin;
  limit[axis] = end;
  Attributes attrs;
  attrs.Set("start", std::move(start));
  attrs.Set("limit", std::move(limit));
  attrs.Set("stride", std::move(stride));
  return ctx.Emit(Op::kSlice, {x}, std::move(attrs));
}

// stride - 1 zeros between consecutive elements along `axis`.
absl::StatusOr<NodeId> ZeroStuff(NodeContext& ctx, NodeId x, int axis, int64_t stride) {
  if (stride == 1) return x;
  std::vector<int64_t> dims = ctx.type(x).shape.dims();
  const int rank = static_cast<int>(dims.size());
  RK_ASSIGN_OR_RETURN(NodeId u, WithAttr(ctx, Op::kUnsqueeze, x, "axes", {axis + 1}));
  std::vector<int64_t> pads(2 * (rank + 1), 0);
  pads[rank + 1 + axis + 1] = stride - 1;
  Attributes attrs;
  attrs.Set("pads", std::move(pads));
  attrs.Set("value", 0.0);
  RK_ASSIGN_OR_RETURN(NodeId padded, ctx.Emit(Op::kPad, {u}, std::move(attrs)));
  const int64_t in = dims[axis];
  dims[axis] = in * stride;
  RK_ASSIGN_OR_RETURN(NodeId flat, Reshaped(ctx, padded, dims));
  return SliceAxis(ctx, flat, axis, 0, in == 0 ? 0 : (in - 1) * stride + 1);
}

// 1-D attributes widened to 2-D (height 1), or the 2-D ones; `fill` for absent.
absl::StatusOr<std::vector<int64_t>> Spatial(NodeContext& ctx, const char* name, int spatial,
                                             int64_t fill, int per_axis) {
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> v, ctx.AttrInts(name));
  std::vector<int64_t> out(2 * per_axis, fill);
  if (!v.has_value()) return out;
  if (static_cast<int>(v->size()) != spatial * per_axis) {
    return ctx.Error(absl::StrCat(name, " needs ", spatial * per_axis, " entries, got ",
                                  v->size()));
  }
  if (spatial == 2) return *v;
  // 1-D: the height entry keeps `fill`'s neutral value.
  for (int p = 0; p < per_axis; ++p) out[p * 2 + 1] = (*v)[p];
  return out;
}

}  // namespace

absl::Status ConvertConvTranspose(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(Op conv, OpNamed(ctx, "conv2d"));
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  RK_ASSIGN_OR_RETURN(NodeId w, ctx.Input(1));
  const int rank = ctx.type(x).shape.rank();
  if (rank != 3 && rank != 4) {
    return ctx.Unsupported(absl::StrCat(rank - 2, "-D transposed convolution"));
  }
  if (ctx.type(w).shape.rank() != rank) {
    return ctx.Error(absl::StrCat("weights ", ctx.type(w).ToString(), " must have rank ", rank));
  }
  RK_ASSIGN_OR_RETURN(std::string auto_pad, ctx.AttrString("auto_pad", "NOTSET"));
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return ctx.Unsupported(absl::StrCat("auto_pad '", auto_pad, "'"));
  }
  const int spatial = rank - 2;
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> strides, Spatial(ctx, "strides", spatial, 1, 1));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, Spatial(ctx, "dilations", spatial, 1, 1));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad,
                      Spatial(ctx, "output_padding", spatial, 0, 1));
  RK_ASSIGN_OR_RETURN(std::vector<int64_t> pads, Spatial(ctx, "pads", spatial, 0, 2));
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  RK_ASSIGN_OR_RETURN(int64_t group, ctx.AttrInt("group", 1));
  if (spatial == 1) {
    RK_ASSIGN_OR_RETURN(x, WithAttr(ctx, Op::kUnsqueeze, x, "axes", {2}));
    RK_ASSIGN_OR_RETURN(w, WithAttr(ctx, Op::kUnsqueeze, w, "axes", {2}));
  }
  const std::vector<int64_t> ws = ctx.type(w).shape.dims();
  const int64_t cin = ctx.type(x).shape.dim(1);
  if (group < 1 || ws[0] != cin || cin % group != 0) {
    return ctx.Error(absl::StrCat("weights ", ctx.type(w).ToString(), " need ", cin,
                                  " input channels in ", group, " groups"));
  }
  for (int a = 0; a < 2; ++a) {
    constexpr int64_t kMax = int64_t{1} << 31;
    if (strides[a] < 1 || dilations[a] < 1 || out_pad[a] < 0 || pads[a] < 0 ||
        pads[a + 2] < 0 || strides[a] > kMax || dilations[a] > kMax || out_pad[a] > kMax ||
        pads[a] > kMax || pads[a + 2] > kMax) {
      return ctx.Error(absl::StrCat("strides and dilations must be in [1, ", kMax,
                                    "], pads and output_padding in [0, ", kMax, "]"));
    }
    if (out_pad[a] >= strides[a] && out_pad[a] >= dilations[a]) {
      return ctx.Error(absl::StrCat("output_padding ", out_pad[a],
                                    " must be below the stride or the dilation"));
    }
  }
  const bool has_shape = ctx.FindAttr("output_shape") != nullptr;
  if (has_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    RK_ASSIGN_OR_RETURN(std::vector<int64_t> target,
                        Spatial(ctx, "output_shape", spatial, 1, 1));
    for (int a = 0; a < 2; ++a) {
      const int64_t in = ctx.type(x).shape.dim(2 + a);
      const int64_t full = strides[a] * (in - 1) + out_pad[a] + dilations[a] * (ws[2 + a] - 1) + 1;
      const int64_t want = has_shape ? target[a] : in * strides[a];
      if (want < 1 || want > (int64_t{1} << 31)) {
        return ctx.Error(absl::StrCat("output size ", want, " is out of range"));
      }
      const int64_t total = full - want;
      const int64_t small = total / 2, large = total - total / 2;
      pads[a] = auto_pad == "SAME_UPPER" ? small : large;
      pads[a + 2] = auto_pad == "SAME_UPPER" ? large : small;
      if (total < 0) {
        // A larger output than the full one grows at the end, as
        // output_padding does (ONNX's own cases).
        pads[a] = 0;
        pads[a + 2] = total;
      }
    }
  }
  // Weights [Cin, Cout/g, kH, kW] -> [Cout, Cin/g, kH, kW], kernel flipped.
  const int64_t cout_g = ws[1];
  RK_ASSIGN_OR_RETURN(NodeId wt, Reshaped(ctx, w, {group, cin / group, cout_g, ws[2], ws[3]}));
  RK_ASSIGN_OR_RETURN(wt, WithAttr(ctx, Op::kTranspose, wt, "perm", {0, 2, 1, 3, 4}));
  RK_ASSIGN_OR_RETURN(wt, Reshaped(ctx, wt, {group * cout_g, cin / group, ws[2], ws[3]}));
  for (int a = 0; a < 2; ++a) {
    const int64_t k = ws[2 + a];
    if (k <= 1) continue;
    HostTensor reversed(TensorType(DType::kI64, Shape({k})));
    for (int64_t i = 0; i < k; ++i) reversed.SetInt(i, k - 1 - i);
    RK_ASSIGN_OR_RETURN(NodeId index, ctx.EmitConstant(std::move(reversed)));
    Attributes attrs;
    attrs.Set("axis", int64_t{2 + a});
    RK_ASSIGN_OR_RETURN(wt, ctx.Emit(Op::kGather, {wt, index}, std::move(attrs)));
  }
  // The input, zero-stuffed, and the convolution's padding (cropping where
  // the transposed convolution's pads exceed the kernel's reach).
  std::vector<int64_t> conv_pads(4, 0);
  for (int a = 0; a < 2; ++a) {
    const int axis = 2 + a;
    RK_ASSIGN_OR_RETURN(x, ZeroStuff(ctx, x, axis, strides[a]));
    const int64_t reach = dilations[a] * (ws[2 + a] - 1);
    int64_t before = reach - pads[a];
    int64_t after = reach - pads[a + 2] + out_pad[a];
    const int64_t size = ctx.type(x).shape.dim(axis);
    const int64_t crop_before = before < 0 ? -before : 0;
    const int64_t crop_after = after < 0 ? -after : 0;
    if (crop_before + crop_after >= size) {
      return ctx.Error(absl::StrCat("pads leave no output along spatial axis ", a));
    }
    RK_ASSIGN_OR_RETURN(x, SliceAxis(ctx, x, axis, crop_before, size - crop_after));
    conv_pads[a] = before + crop_before;
    conv_pads[a + 2] = after + crop_after;
  }
  Attributes attrs;
  attrs.Set("strides", std::vector<int64_t>{1, 1});
  attrs.Set("pads", conv_pads);
  attrs.Set("dilations", dilations);
  attrs.Set("groups", group);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(conv, {x, wt}, std::move(attrs)));
  if (ctx.HasInput(2)) {
    RK_ASSIGN_OR_RETURN(NodeId b, ctx.Input(2));
    RK_ASSIGN_OR_RETURN(b, Reshaped(ctx, b, {ctx.type(b).num_elements(), 1, 1}));
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kAdd, {r, b}));
  }
  if (spatial == 1) {
    RK_ASSIGN_OR_RETURN(r, WithAttr(ctx, Op::kSqueeze, r, "axes", {2}));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
