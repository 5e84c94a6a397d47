// ONNX Resize (and the older Upsample) lowered at import, one resized axis
// at a time: every output position reads a few input positions of its axis
// (taps), known at import from the sizes alone, so an axis becomes
// sum over taps of gather(x, tap indices, axis) * tap weights, with the
// indices and weights constants. Nearest is one tap of weight 1 (a plain
// gather), linear two, cubic four. Coordinates follow ONNX's
// coordinate_transformation_mode (half_pixel, pytorch_half_pixel,
// align_corners, asymmetric, half_pixel_symmetric); linear clamps the source
// coordinate into the input, cubic clamps its taps to the edge (with
// exclude_outside, taps outside get weight 0 and the rest are renormalized).
// Refused: tf_crop_and_resize, antialiasing while downsampling.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

// The tap tables are built on the host: an output axis stays below this.
constexpr int64_t kMaxAxis = int64_t{1} << 24;

struct Taps {
  // indices[t][o], weights[t][o] for tap t of output position o.
  std::vector<std::vector<int64_t>> indices;
  std::vector<std::vector<double>> weights;
};

struct ResizeMode {
  std::string mode, transform, nearest;
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

// The source coordinate of output position `o`. `out` is the output length
// the transform uses: in * scale unrounded when scales are given, as ONNX's
// reference computes it.
absl::StatusOr<double> SourceCoordinate(NodeContext& ctx, const ResizeMode& m, int64_t o,
                                        int64_t in, double out, double scale) {
  const double x = static_cast<double>(o);
  if (m.transform == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (m.transform == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (m.transform == "align_corners") {
    return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / (out - 1);
  }
  if (m.transform == "asymmetric") return x / scale;
  if (m.transform == "half_pixel_symmetric") {
    const double adjustment = out / (scale * static_cast<double>(in));
    const double center = static_cast<double>(in) / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  return ctx.Unsupported(absl::StrCat("coordinate_transformation_mode '", m.transform, "'"));
}

absl::StatusOr<int64_t> Nearest(NodeContext& ctx, const std::string& mode, double x) {
  const double f = std::floor(x);
  const bool half = x - f == 0.5;
  if (mode == "round_prefer_floor") return static_cast<int64_t>(half ? f : std::round(x));
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(half ? f + 1 : std::round(x));
  if (mode == "floor") return static_cast<int64_t>(f);
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  return ctx.Unsupported(absl::StrCat("nearest_mode '", mode, "'"));
}

// Keys' cubic convolution weight of a tap at distance d.
double Cubic(double a, double d) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

absl::StatusOr<Taps> AxisTaps(NodeContext& ctx, const ResizeMode& m, int64_t in, int64_t out,
                              double out_length, double scale) {
  Taps taps;
  const int n = m.mode == "nearest" ? 1 : m.mode == "linear" ? 2 : 4;
  taps.indices.assign(n, std::vector<int64_t>(out));
  taps.weights.assign(n, std::vector<double>(out));
  auto clamp = [&](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), in - 1); };
  for (int64_t o = 0; o < out; ++o) {
    RK_ASSIGN_OR_RETURN(double x, SourceCoordinate(ctx, m, o, in, out_length, scale));
    if (m.mode == "nearest") {
      RK_ASSIGN_OR_RETURN(int64_t i, Nearest(ctx, m.nearest, x));
      taps.indices[0][o] = clamp(i);
      taps.weights[0][o] = 1;
    } else if (m.mode == "linear") {
      x = std::min(std::max(x, 0.0), static_cast<double>(in - 1));
      const int64_t i0 = static_cast<int64_t>(std::floor(x));
      taps.indices[0][o] = i0;
      taps.indices[1][o] = clamp(i0 + 1);
      taps.weights[1][o] = x - static_cast<double>(i0);
      taps.weights[0][o] = 1 - taps.weights[1][o];
    } else {
      const int64_t i0 = static_cast<int64_t>(std::floor(x));
      double total = 0;
      for (int t = 0; t < 4; ++t) {
        const int64_t i = i0 - 1 + t;
        double w = Cubic(m.cubic_a, x - static_cast<double>(i));
        if (m.exclude_outside && (i < 0 || i >= in)) w = 0;
        taps.indices[t][o] = clamp(i);
        taps.weights[t][o] = w;
        total += w;
      }
      if (m.exclude_outside && total != 0) {
        for (int t = 0; t < 4; ++t) taps.weights[t][o] /= total;
      }
    }
  }
  return taps;
}

// x resized along `axis` to `out` positions.
absl::StatusOr<NodeId> ResizeAxis(NodeContext& ctx, NodeId x, int axis, const Taps& taps) {
  const TensorType type = ctx.type(x);
  const int64_t out = static_cast<int64_t>(taps.indices[0].size());
  NodeId sum;
  for (size_t t = 0; t < taps.indices.size(); ++t) {
    HostTensor index(TensorType(DType::kI64, Shape({out})));
    for (int64_t o = 0; o < out; ++o) index.SetInt(o, taps.indices[t][o]);
    RK_ASSIGN_OR_RETURN(NodeId positions, ctx.EmitConstant(std::move(index)));
    Attributes attrs;
    attrs.Set("axis", int64_t{axis});
    RK_ASSIGN_OR_RETURN(NodeId term, ctx.Emit(Op::kGather, {x, positions}, std::move(attrs)));
    bool ones = true;
    for (double w : taps.weights[t]) ones = ones && w == 1;
    if (!ones) {
      std::vector<int64_t> dims(type.shape.rank(), 1);
      dims[axis] = out;
      HostTensor weights(TensorType(type.dtype, Shape(dims)));
      for (int64_t o = 0; o < out; ++o) weights.SetDouble(o, taps.weights[t][o]);
      RK_ASSIGN_OR_RETURN(NodeId w, ctx.EmitConstant(std::move(weights)));
      RK_ASSIGN_OR_RETURN(term, ctx.Emit(Op::kMul, {term, w}));
    }
    if (t == 0) {
      sum = term;
    } else {
      RK_ASSIGN_OR_RETURN(sum, ctx.Emit(Op::kAdd, {sum, term}));
    }
  }
  return sum;
}

// A float input's values, when present and not empty.
absl::StatusOr<std::vector<double>> OptionalFloats(NodeContext& ctx, int i) {
  std::vector<double> out;
  if (!ctx.HasInput(i)) return out;
  RK_ASSIGN_OR_RETURN(HostTensor t, ctx.ConstantInput(i));
  for (int64_t k = 0; k < t.num_elements(); ++k) out.push_back(t.GetDouble(k));
  return out;
}

}  // namespace

absl::Status ConvertResize(NodeContext& ctx) {
  const bool upsample = ctx.node().op_type() == "Upsample";
  RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(0));
  const TensorType type = ctx.type(x);
  const int rank = type.shape.rank();
  if (!IsFloat(type.dtype)) return ctx.Unsupported(absl::StrCat("resizing ", type.ToString()));
  ResizeMode m;
  RK_ASSIGN_OR_RETURN(m.mode, ctx.AttrString("mode", "nearest"));
  if (m.mode == "bilinear") m.mode = "linear";  // Upsample-7's name
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic") {
    return ctx.Unsupported(absl::StrCat("mode '", m.mode, "'"));
  }
  // Before opset 11 coordinates were asymmetric and nearest rounded down.
  const bool old = upsample || ctx.opset() < 11;
  RK_ASSIGN_OR_RETURN(m.transform, ctx.AttrString("coordinate_transformation_mode",
                                                  old ? "asymmetric" : "half_pixel"));
  RK_ASSIGN_OR_RETURN(m.nearest, ctx.AttrString("nearest_mode",
                                                old ? "floor" : "round_prefer_floor"));
  RK_ASSIGN_OR_RETURN(m.cubic_a, ctx.AttrFloat("cubic_coeff_a", -0.75));
  RK_ASSIGN_OR_RETURN(int64_t exclude, ctx.AttrInt("exclude_outside", 0));
  m.exclude_outside = exclude != 0;
  RK_ASSIGN_OR_RETURN(int64_t antialias, ctx.AttrInt("antialias", 0));
  RK_ASSIGN_OR_RETURN(std::string policy, ctx.AttrString("keep_aspect_ratio_policy", "stretch"));
  if (m.transform == "tf_crop_and_resize") return ctx.Unsupported("tf_crop_and_resize");

  // The axes resized (opset 18), and their scales or sizes.
  std::vector<int> axes;
  RK_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes_attr, ctx.AttrInts("axes"));
  if (axes_attr.has_value()) {
    for (int64_t a : *axes_attr) {
      RK_ASSIGN_OR_RETURN(int axis, ctx.Axis(a, rank));
      axes.push_back(axis);
    }
  } else {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  }
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (upsample || ctx.opset() < 11) {
    if (ctx.opset() < 9) {
      const onnx::AttributeProto* a = ctx.FindAttr("scales");
      if (a == nullptr) return ctx.Error("no scales");
      for (float f : a->floats()) scales.push_back(f);
    } else {
      RK_ASSIGN_OR_RETURN(scales, OptionalFloats(ctx, 1));
    }
  } else {
    RK_ASSIGN_OR_RETURN(scales, OptionalFloats(ctx, 2));
    if (ctx.HasInput(3)) {
      RK_ASSIGN_OR_RETURN(sizes, ctx.ConstantInts(3));
    }
  }
  if (scales.empty() == sizes.empty()) return ctx.Error("needs exactly one of scales and sizes");
  const size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size()) {
    return ctx.Error(absl::StrCat(scales.empty() ? "sizes" : "scales", " has ", given,
                                  " entries for ", axes.size(), " axes"));
  }
  std::vector<int64_t> out(axes.size());
  std::vector<double> scale(axes.size());
  if (!scales.empty()) {
    for (size_t k = 0; k < axes.size(); ++k) {
      if (!(scales[k] > 0)) return ctx.Error(absl::StrCat("scale ", scales[k], " is not positive"));
      scale[k] = scales[k];
      const double size = std::floor(type.shape.dim(axes[k]) * scales[k]);
      if (!(size <= kMaxAxis)) return ctx.Unsupported(absl::StrCat("an output axis of ", size));
      out[k] = static_cast<int64_t>(size);
    }
  } else {
    for (size_t k = 0; k < axes.size(); ++k) {
      if (sizes[k] < 0) return ctx.Error(absl::StrCat("size ", sizes[k], " is negative"));
      if (sizes[k] > kMaxAxis) return ctx.Unsupported(absl::StrCat("an output axis of ", sizes[k]));
      out[k] = sizes[k];
      scale[k] = static_cast<double>(sizes[k]) / static_cast<double>(type.shape.dim(axes[k]));
    }
    if (policy != "stretch") {
      if (policy != "not_larger" && policy != "not_smaller") {
        return ctx.Unsupported(absl::StrCat("keep_aspect_ratio_policy '", policy, "'"));
      }
      double s = scale[0];
      for (double v : scale) s = policy == "not_larger" ? std::min(s, v) : std::max(s, v);
      for (size_t k = 0; k < axes.size(); ++k) {
        scale[k] = s;
        const double size = std::round(s * type.shape.dim(axes[k]));
        if (!(size <= kMaxAxis)) return ctx.Unsupported(absl::StrCat("an output axis of ", size));
        out[k] = static_cast<int64_t>(size);
      }
    }
  }
  NodeId r = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t in = type.shape.dim(axes[k]);
    if (out[k] == in && scale[k] == 1) continue;
    if (in == 0 || out[k] == 0) return ctx.Unsupported("resizing an empty axis");
    if (antialias != 0 && scale[k] < 1 && m.mode != "nearest") {
      return ctx.Unsupported("antialias=1 when downsampling");
    }
    const double out_length = scales.empty() ? static_cast<double>(out[k]) : in * scale[k];
    RK_ASSIGN_OR_RETURN(Taps taps, AxisTaps(ctx, m, in, out[k], out_length, scale[k]));
    RK_ASSIGN_OR_RETURN(r, ResizeAxis(ctx, r, axes[k], taps));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
