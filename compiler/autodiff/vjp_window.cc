// Gradient rules of the window ops, built from ops the IR has (there is no
// transposed convolution and no scatter). Per spatial axis: stride s,
// dilation d, kernel k, padding pb before; output o reads input
// o * s - pb + t * d for tap t (compiler/ir/window.h).
//
// conv2d, per group:
//   dx: the gradient with s - 1 zeros between elements (Interleave), shifted
//       by (k - 1) d - pb and cut to H + (k - 1) d (PadOrSlice), convolved
//       with the kernel flipped spatially (Reverse) and its two channel axes
//       swapped, stride 1, the forward dilation;
//   dw: a convolution of x (channels as batch) with g (channels as batch):
//       stride d, dilation s, the forward padding, cut to k x k.
// max_pool2d / avg_pool2d, per tap (i, j) of the kernel: the strided slice of
// the padded input that tap reads is compared with (max) or weighted for
// (avg) the output, and its share of g is spread back with Unslice; the
// padded gradient is cut to the input. max_pool2d splits g equally among the
// taps of a window that hold its maximum (the rule of reduce_max; padding,
// -inf, never wins against a real element).
#include <cmath>
#include <limits>

#include "base/status_macros.h"
#include "compiler/autodiff/vjp_rules.h"
#include "compiler/ir/window.h"

namespace rk::compiler::autodiff {
namespace {

absl::StatusOr<NodeId> ChannelSlice(GradBuilder& gb, NodeId x, int axis, int64_t begin,
                                    int64_t size) {
  const Shape& s = gb.shape(x);
  if (begin == 0 && size == s.dim(axis)) return x;
  std::vector<int64_t> start(4, 0), limit = s.dims(), stride(4, 1);
  start[axis] = begin;
  limit[axis] = begin + size;
  return gb.Slice(x, start, limit, stride);
}

absl::StatusOr<NodeId> Conv(GradBuilder& gb, NodeId x, NodeId w, std::vector<int64_t> strides,
                            std::vector<int64_t> pads, std::vector<int64_t> dilations) {
  return gb.builder().Add(Op::kConv2d, {x, w},
                          {{"strides", std::move(strides)},
                           {"pads", std::move(pads)},
                           {"dilations", std::move(dilations)},
                           {"groups", int64_t{1}}});
}

// dx of one group: g [N, Og, OH, OW], w [Og, Cg, kH, kW] -> [N, Cg, H, W].
absl::StatusOr<NodeId> ConvInputGrad(GradBuilder& gb, const Window2d& win, NodeId g, NodeId w,
                                     const Shape& x_shape) {
  NodeId spread = g;
  std::vector<int64_t> before(4, 0), after(4, 0);
  for (int axis = 0; axis < 2; ++axis) {
    RK_ASSIGN_OR_RETURN(spread, gb.Interleave(spread, 2 + axis, win.stride[axis]));
    const int64_t reach = (win.kernel[axis] - 1) * win.dilation[axis];
    before[2 + axis] = reach - win.pad_before[axis];
    after[2 + axis] = x_shape.dim(2 + axis) + reach - before[2 + axis] - gb.shape(spread).dim(2 + axis);
  }
  RK_ASSIGN_OR_RETURN(NodeId placed, gb.PadOrSlice(spread, before, after));
  RK_ASSIGN_OR_RETURN(NodeId flipped_h, gb.Reverse(w, 2));
  RK_ASSIGN_OR_RETURN(NodeId flipped, gb.Reverse(flipped_h, 3));
  RK_ASSIGN_OR_RETURN(NodeId swapped, gb.Transpose(flipped, {1, 0, 2, 3}));
  return Conv(gb, placed, swapped, {1, 1}, {0, 0, 0, 0}, {win.dilation[0], win.dilation[1]});
}

// dw of one group: x [N, Cg, H, W], g [N, Og, OH, OW] -> [Og, Cg, kH, kW].
absl::StatusOr<NodeId> ConvWeightGrad(GradBuilder& gb, const Window2d& win, NodeId x, NodeId g) {
  RK_ASSIGN_OR_RETURN(NodeId xt, gb.Transpose(x, {1, 0, 2, 3}));  // [Cg, N, H, W]
  RK_ASSIGN_OR_RETURN(NodeId gt, gb.Transpose(g, {1, 0, 2, 3}));  // [Og, N, OH, OW]
  RK_ASSIGN_OR_RETURN(
      NodeId full,
      Conv(gb, xt, gt, {win.dilation[0], win.dilation[1]},
           {win.pad_before[0], win.pad_before[1], win.pad_after[0], win.pad_after[1]},
           {win.stride[0], win.stride[1]}));  // [Cg, Og, >= kH, >= kW]
  const Shape& s = gb.shape(full);
  RK_ASSIGN_OR_RETURN(NodeId cut, gb.Slice(full, {0, 0, 0, 0},
                                           {s.dim(0), s.dim(1), win.kernel[0], win.kernel[1]},
                                           {1, 1, 1, 1}));
  return gb.Transpose(cut, {1, 0, 2, 3});
}

}  // namespace

absl::StatusOr<Grads> Conv2dVjp(GradBuilder& gb, const VjpArgs& a) {
  const NodeId x = a.x[0], w = a.x[1];
  const Window2d win = ReadWindow(Op::kConv2d, a.node.attrs, gb.shape(w));
  const Shape& xs = gb.shape(x);
  const int64_t groups = win.groups;
  const int64_t cg = xs.dim(1) / groups;
  const int64_t og = gb.shape(w).dim(0) / groups;
  std::vector<NodeId> dx_parts, dw_parts;
  for (int64_t k = 0; k < groups; ++k) {
    RK_ASSIGN_OR_RETURN(NodeId gk, ChannelSlice(gb, a.g, 1, k * og, og));
    if (a.wants[0]) {
      RK_ASSIGN_OR_RETURN(NodeId wk, ChannelSlice(gb, w, 0, k * og, og));
      Shape part({xs.dim(0), cg, xs.dim(2), xs.dim(3)});
      RK_ASSIGN_OR_RETURN(NodeId d, ConvInputGrad(gb, win, gk, wk, part));
      dx_parts.push_back(d);
    }
    if (a.wants[1]) {
      RK_ASSIGN_OR_RETURN(NodeId xk, ChannelSlice(gb, x, 1, k * cg, cg));
      RK_ASSIGN_OR_RETURN(NodeId d, ConvWeightGrad(gb, win, xk, gk));
      dw_parts.push_back(d);
    }
  }
  Grads grads(2);
  if (a.wants[0]) {
    RK_ASSIGN_OR_RETURN(grads[0], gb.Concat(dx_parts, 1));
  }
  if (a.wants[1]) {
    RK_ASSIGN_OR_RETURN(grads[1], gb.Concat(dw_parts, 0));
  }
  return grads;
}

absl::StatusOr<Grads> PoolVjp(GradBuilder& gb, const VjpArgs& a) {
  const NodeId x = a.x[0];
  const bool is_max = a.node.op == Op::kMaxPool2d;
  const Window2d win = ReadWindow(a.node.op, a.node.attrs);
  const Shape& xs = gb.shape(x);
  const Shape& ys = gb.shape(a.y);
  const DType dt = gb.type(x).dtype;
  const std::vector<int64_t> before = {0, 0, win.pad_before[0], win.pad_before[1]};
  const std::vector<int64_t> after = {0, 0, win.pad_after[0], win.pad_after[1]};
  const double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  RK_ASSIGN_OR_RETURN(NodeId padded, gb.PadOrSlice(x, before, after, fill));
  const Shape padded_shape = gb.shape(padded);

  // The strided slice of `source` (padded-input shaped) that tap (i, j) reads.
  auto tap = [&](NodeId source, int64_t i, int64_t j) -> absl::StatusOr<NodeId> {
    const int64_t h0 = i * win.dilation[0], w0 = j * win.dilation[1];
    return gb.Slice(source, {0, 0, h0, w0},
                    {ys.dim(0), ys.dim(1), h0 + (ys.dim(2) - 1) * win.stride[0] + 1,
                     w0 + (ys.dim(3) - 1) * win.stride[1] + 1},
                    {1, 1, win.stride[0], win.stride[1]});
  };
  auto spread = [&](NodeId part, int64_t i, int64_t j) -> absl::StatusOr<NodeId> {
    return gb.Unslice(part, padded_shape, {0, 0, i * win.dilation[0], j * win.dilation[1]},
                      {1, 1, win.stride[0], win.stride[1]});
  };

  std::vector<NodeId> parts;
  if (is_max) {
    std::vector<NodeId> masks;
    for (int64_t i = 0; i < win.kernel[0]; ++i) {
      for (int64_t j = 0; j < win.kernel[1]; ++j) {
        RK_ASSIGN_OR_RETURN(NodeId t, tap(padded, i, j));
        RK_ASSIGN_OR_RETURN(NodeId hit, gb.Bin(Op::kEq, t, a.y));
        RK_ASSIGN_OR_RETURN(NodeId mask, gb.Cast(hit, dt));
        masks.push_back(mask);
      }
    }
    RK_ASSIGN_OR_RETURN(NodeId ties, SumAll(gb, masks));
    RK_ASSIGN_OR_RETURN(NodeId share, gb.Bin(Op::kDiv, a.g, ties));
    int k = 0;
    for (int64_t i = 0; i < win.kernel[0]; ++i) {
      for (int64_t j = 0; j < win.kernel[1]; ++j) {
        RK_ASSIGN_OR_RETURN(NodeId part, gb.Bin(Op::kMul, share, masks[k++]));
        RK_ASSIGN_OR_RETURN(NodeId s, spread(part, i, j));
        parts.push_back(s);
      }
    }
  } else {
    // The divisor: kH * kW, or the count of real taps (a tap's slice of a
    // zero-padded ones tensor is 1 where it reads the input).
    NodeId share;
    if (win.count_include_pad) {
      RK_ASSIGN_OR_RETURN(share, gb.BinScalar(Op::kDiv, a.g,
                                              static_cast<double>(win.kernel[0] * win.kernel[1])));
    } else {
      RK_ASSIGN_OR_RETURN(NodeId ones, gb.builder().Full(TensorType(dt, xs), 1.0));
      RK_ASSIGN_OR_RETURN(NodeId real, gb.PadOrSlice(ones, before, after, 0.0));
      std::vector<NodeId> counts;
      for (int64_t i = 0; i < win.kernel[0]; ++i) {
        for (int64_t j = 0; j < win.kernel[1]; ++j) {
          RK_ASSIGN_OR_RETURN(NodeId t, tap(real, i, j));
          counts.push_back(t);
        }
      }
      RK_ASSIGN_OR_RETURN(NodeId count, SumAll(gb, counts));
      RK_ASSIGN_OR_RETURN(share, gb.Bin(Op::kDiv, a.g, count));
    }
    for (int64_t i = 0; i < win.kernel[0]; ++i) {
      for (int64_t j = 0; j < win.kernel[1]; ++j) {
        RK_ASSIGN_OR_RETURN(NodeId s, spread(share, i, j));
        parts.push_back(s);
      }
    }
  }
  RK_ASSIGN_OR_RETURN(NodeId sum, SumAll(gb, parts));
  std::vector<int64_t> unpad_before(4), unpad_after(4);
  for (int i = 0; i < 4; ++i) {
    unpad_before[i] = -before[i];
    unpad_after[i] = -after[i];
  }
  RK_ASSIGN_OR_RETURN(NodeId gx, gb.PadOrSlice(sum, unpad_before, unpad_after));
  return Grads{gx};
}

}  // namespace rk::compiler::autodiff
