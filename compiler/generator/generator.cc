#include "compiler/generator/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/generator/generator_context.h"
#include "compiler/generator/pass_patterns.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/ir/shape_inference.h"
#include "compiler/ir/window.h"

namespace rk::compiler::generator {

using compiler::DType;
using compiler::IsFloat;
using compiler::Op;
using compiler::OpKind;
using compiler::Shape;
using compiler::TensorType;

namespace {

bool IsNumeric(const ValueFacts& f) { return f.type.dtype != DType::kBool; }
bool IsFloatValue(const ValueFacts& f) { return IsFloat(f.type.dtype); }

// Whether `a` and `b` broadcast to a shape of at most `max_elements`.
bool Compatible(const Shape& a, const Shape& b, int64_t max_elements) {
  absl::StatusOr<Shape> s = compiler::BroadcastShapes(a, b);
  return s.ok() && s->num_elements() <= max_elements;
}

// The op builders: each places one node of its op, creating whatever
// operands it needs.
class OpBuilder {
 public:
  explicit OpBuilder(GenContext& ctx) : ctx_(ctx), rng_(ctx.rng()) {}

  absl::Status Add(Op op) {
    switch (compiler::GetOpKind(op)) {
      case OpKind::kSource: return Source(op);
      case OpKind::kUnary: return Unary(op);
      case OpKind::kBinary: return Binary(op);
      case OpKind::kCompare: return Compare(op);
      case OpKind::kLogic: return Logic(op);
      case OpKind::kSelect: return Where();
      case OpKind::kCast: return Cast();
      case OpKind::kReduce: return Reduce(op);
      case OpKind::kScan: return Scan(op);
      case OpKind::kLayout: return Layout(op);
      case OpKind::kMatmul: return Matmul();
      case OpKind::kGather: return Gather();
      case OpKind::kWindow: return Window(op);
      case OpKind::kComposite: return op == Op::kGelu ? Unary(op) : Composite(op);
    }
    return absl::OkStatus();
  }

 private:
  int64_t max() const { return ctx_.options().max_elements; }

  // An existing value satisfying `pred`, or a new one of a random type.
  absl::StatusOr<int> Operand(const std::function<bool(const ValueFacts&)>& pred, DType dtype,
                              int min_rank, bool exact) {
    const int v = ctx_.Pick([&](const ValueFacts& f) {
      return pred(f) && f.type.shape.rank() >= min_rank && (!exact || f.exact);
    });
    if (v >= 0) return v;
    return ctx_.Produce(TensorType(dtype, ctx_.RandomShape(min_rank)), exact);
  }

  absl::Status Source(Op op) {
    if (op == Op::kInput) return Skip("inputs come with their users");
    TensorType type(ctx_.RandomDType(), ctx_.RandomShape(op == Op::kIota ? 1 : 0));
    if (op == Op::kIota && type.dtype == DType::kBool) type.dtype = ctx_.MainFloat();
    if (op == Op::kConstant && type.num_elements() > 64) type.shape = Shape{4};
    return ctx_.EmitSource(op, type).status();
  }

  absl::Status Unary(Op op) {
    const bool ints_ok = op == Op::kNeg || op == Op::kAbs || op == Op::kClip;
    int v;
    RK_ASSIGN_OR_RETURN(v, Operand(rng_.Chance(0.8) ? IsFloatValue : IsNumeric, ctx_.RandomFloatDType(), 0,
                         false));
    if (!IsFloat(ctx_.type(v).dtype) && !(ints_ok && ctx_.type(v).dtype != DType::kBool)) {
      RK_ASSIGN_OR_RETURN(v, ctx_.Convert(v, ctx_.RandomFloatDType()));
    }
    RK_ASSIGN_OR_RETURN(v, ctx_.Fit(op, 0, v, ctx_.type(v)));
    if (op == Op::kClip) return ctx_.EmitBounded(op, {v}, ClipBounds()).status();
    return ctx_.EmitBounded(op, {v}).status();
  }

  // Each bound present with probability 0.7, in order when both are; values
  // every dtype holds exactly.
  compiler::Attributes ClipBounds() {
    constexpr double kBounds[] = {-3, -1, -0.5, 0, 0.5, 1, 2};
    std::vector<double> bounds;
    for (int i = 0; i < 2; ++i) {
      if (rng_.Chance(0.7)) bounds.push_back(rng_.Pick(kBounds));
    }
    std::sort(bounds.begin(), bounds.end());
    compiler::Attributes attrs;
    if (bounds.size() == 2) {
      attrs.Set("min", bounds[0]);
      attrs.Set("max", bounds[1]);
    } else if (bounds.size() == 1) {
      attrs.Set(rng_.Chance(0.5) ? "min" : "max", bounds[0]);
    }
    return attrs;
  }

  absl::Status Binary(Op op) {
    int a;
    RK_ASSIGN_OR_RETURN(a, Operand(op == Op::kPow ? IsFloatValue : IsNumeric, ctx_.RandomFloatDType(), 0,
                         false));
    const TensorType ta = ctx_.type(a);
    int b = -1;
    if (rng_.Chance(0.4)) {
      b = ctx_.Pick([&](const ValueFacts& f) {
        return f.type.dtype == ta.dtype && Compatible(ta.shape, f.type.shape, max());
      });
    }
    if (b < 0) {
      RK_ASSIGN_OR_RETURN(b, ctx_.Produce(TensorType(ta.dtype, ctx_.BroadcastPartner(ta.shape)), false));
    }
    if (rng_.Chance(0.3)) std::swap(a, b);
    RK_ASSIGN_OR_RETURN(a, ctx_.Fit(op, 0, a, ctx_.type(a)));
    RK_ASSIGN_OR_RETURN(b, ctx_.Fit(op, 1, b, ctx_.type(b)));
    // mod and floordiv need exact operands, which rescaling would not keep;
    // their divisor guard bounds the result instead (value_range.h).
    if (op == Op::kMod || op == Op::kFloorDiv) return ctx_.Emit(op, {a, b}).status();
    return ctx_.EmitBounded(op, {a, b}).status();
  }

  absl::Status Compare(Op op) {
    int a;
    RK_ASSIGN_OR_RETURN(a, Operand([](const ValueFacts&) { return true; }, ctx_.RandomDType(), 0, true));
    const TensorType ta = ctx_.type(a);
    int b = -1;
    const uint64_t r = rng_.Below(10);
    if (r < 4) {
      const double threshold = ta.dtype == DType::kBool ? 1.0 : rng_.Chance(0.5) ? 0.0 : 0.5;
      RK_ASSIGN_OR_RETURN(b, ctx_.ScalarFull(ta.dtype, threshold));
    } else if (r < 7) {
      b = ctx_.Pick([&](const ValueFacts& f) {
        return f.exact && f.type.dtype == ta.dtype && Compatible(ta.shape, f.type.shape, max());
      });
    }
    if (b < 0) {
      RK_ASSIGN_OR_RETURN(b, ctx_.Produce(TensorType(ta.dtype, ctx_.BroadcastPartner(ta.shape)), true));
    }
    if (rng_.Chance(0.3)) std::swap(a, b);
    return ctx_.Emit(op, {a, b}).status();
  }

  absl::StatusOr<int> Bool(const Shape* like) {
    const int v = ctx_.Pick([&](const ValueFacts& f) {
      return f.exact && f.type.dtype == DType::kBool &&
             (like == nullptr || Compatible(*like, f.type.shape, max()));
    });
    if (v >= 0) return v;
    const Shape shape = like ? ctx_.BroadcastPartner(*like) : ctx_.RandomShape();
    return ctx_.Produce(TensorType(DType::kBool, shape), true);
  }

  absl::Status Logic(Op op) {
    int a;
    RK_ASSIGN_OR_RETURN(a, Bool(nullptr));
    if (op == Op::kNot) return ctx_.Emit(op, {a}).status();
    const Shape shape = ctx_.type(a).shape;
    int b;
    RK_ASSIGN_OR_RETURN(b, Bool(&shape));
    if (rng_.Chance(0.3)) std::swap(a, b);
    return ctx_.Emit(op, {a, b}).status();
  }

  absl::Status Where() {
    int a;
    RK_ASSIGN_OR_RETURN(a, Operand([](const ValueFacts&) { return true; }, ctx_.RandomDType(), 0, false));
    const TensorType ta = ctx_.type(a);
    int cond;
    RK_ASSIGN_OR_RETURN(cond, Bool(&ta.shape));
    int b = -1;
    if (rng_.Chance(0.4)) {
      b = ctx_.Pick([&](const ValueFacts& f) {
        return f.type.dtype == ta.dtype && Compatible(ta.shape, f.type.shape, max()) &&
               Compatible(ctx_.type(cond).shape, f.type.shape, max());
      });
    }
    if (b < 0) {
      RK_ASSIGN_OR_RETURN(b, ctx_.Produce(TensorType(ta.dtype, ctx_.BroadcastPartner(ta.shape)), false));
    }
    if (rng_.Chance(0.5)) std::swap(a, b);
    return ctx_.EmitBounded(Op::kWhere, {cond, a, b}).status();
  }

  absl::Status Cast() {
    int v;
    RK_ASSIGN_OR_RETURN(v, Operand([](const ValueFacts&) { return true; }, ctx_.RandomDType(), 0, false));
    const DType from = ctx_.type(v).dtype;
    DType to = ctx_.RandomDType();
    for (int i = 0; i < 4 && to == from; ++i) to = ctx_.RandomDType();
    if (to == from) to = from == DType::kF32 ? DType::kF16 : DType::kF32;
    RK_ASSIGN_OR_RETURN(v, ctx_.Fit(Op::kCast, 0, v, TensorType(to, ctx_.type(v).shape)));
    if (ctx_.type(v).dtype == to) return absl::OkStatus();
    return ctx_.Emit(Op::kCast, {v}, {{"dtype", to}}).status();
  }

  absl::Status Reduce(Op op) {
    const bool argmax = op == Op::kArgmax;
    int v;
    RK_ASSIGN_OR_RETURN(v, Operand(IsNumeric, argmax ? ctx_.RandomDType() : ctx_.RandomFloatDType(),
                         argmax ? 1 : 0, argmax));
    const DType dtype = ctx_.type(v).dtype;
    if (dtype == DType::kBool || (op == Op::kReduceMean && !IsFloat(dtype))) {
      RK_ASSIGN_OR_RETURN(v, ctx_.Convert(v, argmax ? DType::kI32 : ctx_.RandomFloatDType()));
    }
    const int rank = ctx_.type(v).shape.rank();
    const bool keepdim = rng_.Chance(0.5);
    if (argmax) {
      const int64_t axis = static_cast<int64_t>(rng_.Below(rank)) - (rng_.Chance(0.2) ? rank : 0);
      return ctx_.Emit(op, {v}, {{"axis", axis}, {"keepdim", keepdim}}).status();
    }
    return ctx_.EmitBounded(op, {v}, {{"axes", ctx_.RandomAxes(rank, true)}, {"keepdim", keepdim}})
        .status();
  }

  absl::Status Scan(Op op) {
    int v;
    RK_ASSIGN_OR_RETURN(v, Operand(IsNumeric, ctx_.RandomFloatDType(), 1, false));
    const int rank = ctx_.type(v).shape.rank();
    const int64_t axis = static_cast<int64_t>(rng_.Below(rank)) - (rng_.Chance(0.2) ? rank : 0);
    const bool exclusive = rng_.Chance(0.3);
    const bool reverse = rng_.Chance(0.3);
    return ctx_.EmitBounded(op, {v}, {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}})
        .status();
  }

  absl::Status Layout(Op op) {
    const auto any = [](const ValueFacts&) { return true; };
    int v;
    RK_ASSIGN_OR_RETURN(v, Operand(any, ctx_.RandomDType(),
                         op == Op::kTranspose                                          ? 2
                         : (op == Op::kSlice || op == Op::kConcat || op == Op::kPad) ? 1
                                                                                      : 0,
                         false));
    const Shape s = ctx_.type(v).shape;
    const int rank = s.rank();
    switch (op) {
      case Op::kReshape: {
        const int64_t n = s.num_elements();
        const int new_rank = static_cast<int>(rng_.Range(n > 1 ? 1 : 0, ctx_.options().max_rank));
        return ctx_.Emit(op, {v}, {{"shape", ctx_.Factorize(n, new_rank)}}).status();
      }
      case Op::kTranspose: {
        std::vector<int64_t> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        rng_.Shuffle(perm);
        return ctx_.Emit(op, {v}, {{"perm", perm}}).status();
      }
      case Op::kBroadcastTo: return BroadcastTo(v);
      case Op::kSlice: {
        std::vector<int64_t> dims;
        for (int64_t d : s.dims()) dims.push_back(rng_.Range(1, d));
        return ctx_.Derive(v, Shape(dims)).status();
      }
      case Op::kConcat: return Concat(v);
      case Op::kPad: return Pad(v);
      case Op::kSqueeze: return Squeeze(v);
      case Op::kUnsqueeze: {
        const int added = static_cast<int>(rng_.Range(1, 2));
        std::vector<int64_t> positions(rank + added);
        std::iota(positions.begin(), positions.end(), 0);
        rng_.Shuffle(positions);
        positions.resize(added);
        return ctx_.Emit(op, {v}, {{"axes", positions}}).status();
      }
      default: return absl::InternalError("not a layout op");
    }
  }

  absl::Status BroadcastTo(int v) {
    constexpr int64_t kSizes[] = {1, 2, 3, 4, 8};
    const Shape s = ctx_.type(v).shape;
    int64_t budget = std::max<int64_t>(1, max() / std::max<int64_t>(1, s.num_elements()));
    std::vector<int64_t> dims;
    const int leading = static_cast<int>(rng_.Range(0, std::max(0, ctx_.options().max_rank - s.rank())));
    for (int i = 0; i < leading + s.rank(); ++i) {
      const int64_t d = i < leading ? 1 : s.dim(i - leading);
      int64_t target = d;
      if (d == 1) {
        target = rng_.Pick(kSizes);
        if (target > budget) target = 1;
        budget /= target;
      }
      dims.push_back(target);
    }
    return ctx_.Emit(Op::kBroadcastTo, {v}, {{"shape", dims}}).status();
  }

  absl::Status Concat(int v) {
    const TensorType t = ctx_.type(v);
    const int rank = t.shape.rank();
    const int axis = static_cast<int>(rng_.Below(rank));
    std::vector<int> parts = {v};
    int64_t total = t.num_elements();
    const int partners = static_cast<int>(rng_.Range(1, 2));
    for (int k = 0; k < partners; ++k) {
      std::vector<int64_t> dims = t.shape.dims();
      dims[axis] = rng_.Range(1, 4);
      int p = -1;
      if (rng_.Chance(0.4)) {
        p = ctx_.Pick([&](const ValueFacts& f) {
          if (f.type.dtype != t.dtype || f.type.shape.rank() != rank) return false;
          for (int i = 0; i < rank; ++i) {
            if (i != axis && f.type.shape.dim(i) != t.shape.dim(i)) return false;
          }
          return true;
        });
      }
      const int64_t elements = p >= 0 ? ctx_.type(p).num_elements() : Shape(dims).num_elements();
      if (total + elements > max()) break;
      if (p < 0) {
        RK_ASSIGN_OR_RETURN(p, ctx_.Produce(TensorType(t.dtype, Shape(dims)), false));
      }
      total += elements;
      parts.push_back(p);
    }
    rng_.Shuffle(parts);
    const int64_t axis_attr = rng_.Chance(0.2) ? axis - rank : axis;
    return ctx_.EmitBounded(Op::kConcat, parts, {{"axis", axis_attr}}).status();
  }

  // Up to 2 elements before and after on about half the axes; a value of
  // the operand's kind.
  absl::Status Pad(int v) {
    const TensorType t = ctx_.type(v);
    const int rank = t.shape.rank();
    std::vector<int64_t> pads(2 * rank, 0);
    for (int64_t& p : pads) p = rng_.Chance(0.5) ? rng_.Range(1, 2) : 0;
    constexpr double kFloatValues[] = {0, 1, -1, 0.5, -2.5};
    constexpr double kIntValues[] = {0, 1, -3};
    const double value = IsFloat(t.dtype)               ? rng_.Pick(kFloatValues)
                         : compiler::IsInteger(t.dtype) ? rng_.Pick(kIntValues)
                                                        : static_cast<double>(rng_.Below(2));
    return ctx_.Emit(Op::kPad, {v}, {{"pads", pads}, {"value", value}}).status();
  }

  absl::Status Squeeze(int v) {
    const Shape s = ctx_.type(v).shape;
    std::vector<int64_t> ones;
    for (int i = 0; i < s.rank(); ++i) {
      if (s.dim(i) == 1) ones.push_back(i);
    }
    if (ones.empty()) {
      std::vector<int64_t> dims = s.dims();
      const int at = static_cast<int>(rng_.Range(0, s.rank()));
      dims.insert(dims.begin() + at, 1);
      RK_ASSIGN_OR_RETURN(v, ctx_.Derive(v, Shape(dims)));
      if (ctx_.type(v).shape.rank() < static_cast<int>(dims.size())) return absl::OkStatus();
      ones = {at};
    }
    rng_.Shuffle(ones);
    ones.resize(rng_.Range(1, static_cast<int64_t>(ones.size())));
    return ctx_.Emit(Op::kSqueeze, {v}, {{"axes", ones}}).status();
  }

  absl::Status Matmul() {
    constexpr int64_t kSizes[] = {1, 2, 3, 4, 5, 8, 16};
    int a;
    RK_ASSIGN_OR_RETURN(a, Operand(IsNumeric, ctx_.RandomFloatDType(), 2, false));
    const TensorType ta = ctx_.type(a);
    const int rank = ta.shape.rank();
    const int64_t k = ta.shape.dim(rank - 1);
    int64_t n = rng_.Pick(kSizes);
    const int64_t rows = ta.num_elements() / std::max<int64_t>(k, 1);
    if (rows * n > max()) n = 1;
    if (rows * n > max()) return Skip("matmul result too large");
    std::vector<int64_t> batch(ta.shape.dims().begin(), ta.shape.dims().end() - 2);
    const Shape partner_batch = ctx_.BroadcastPartner(Shape(batch));
    std::vector<int64_t> dims = partner_batch.dims();
    dims.push_back(k);
    dims.push_back(n);
    // The right operand may be a new input, which no Emit size check sees.
    if (Shape(dims).num_elements() > max()) return Skip("matmul operand too large");
    int b = -1;
    if (rng_.Chance(0.3)) {
      b = ctx_.Pick([&](const ValueFacts& f) {
        return f.type.dtype == ta.dtype && f.type.shape == Shape(dims);
      });
    }
    if (b < 0) {
      RK_ASSIGN_OR_RETURN(b, ctx_.Produce(TensorType(ta.dtype, Shape(dims)), false));
    }
    return ctx_.EmitBounded(Op::kMatmul, {a, b}).status();
  }

  // Data of any dtype; indices i32 or i64 of rank 0 to 2, every value in
  // [-size, size) of the gathered axis (value_range.cc widens the result's
  // range by the 0 an out-of-range index would give, so in-range indices
  // keep it exact).
  absl::Status Gather() {
    constexpr int64_t kSizes[] = {1, 2, 3, 4, 5, 8};
    int data;
    RK_ASSIGN_OR_RETURN(data, Operand([](const ValueFacts&) { return true; }, ctx_.RandomDType(),
                                      1, false));
    const TensorType td = ctx_.type(data);
    const int rank = td.shape.rank();
    const int axis = static_cast<int>(rng_.Below(rank));
    const int64_t size = td.shape.dim(axis);
    if (size == 0) return Skip("gather from an empty axis");
    int64_t budget = max() / std::max<int64_t>(1, td.num_elements() / size);
    std::vector<int64_t> dims;
    const int index_rank = static_cast<int>(rng_.Range(0, 2));
    for (int i = 0; i < index_rank; ++i) {
      int64_t d = rng_.Pick(kSizes);
      if (d > budget) d = 1;
      budget /= d;
      dims.push_back(d);
    }
    if (budget < 1) return Skip("gather result too large");
    const DType index_dtype = rng_.Chance(0.5) ? DType::kI32 : DType::kI64;
    int indices;
    RK_ASSIGN_OR_RETURN(indices, ctx_.ProduceIndices(TensorType(index_dtype, Shape(dims)), size));
    const int64_t axis_attr = rng_.Chance(0.2) ? axis - rank : axis;
    return ctx_.Emit(Op::kGather, {data, indices}, {{"axis", axis_attr}}).status();
  }

  // conv2d and the pools on a float [N,C,H,W] value of small dims: kernels
  // up to 3, strides and dilations up to 2 (avg_pool2d has no dilation),
  // pads below the kernel. A pool whose windows could hold padding only
  // drops its dilation (value_range.cc has no finite range for such a
  // window);
  // conv2d's groups divide C, with 1 to 3 outputs per group.
  absl::Status Window(Op op) {
    constexpr int64_t kSpatial[] = {1, 2, 3, 4, 5, 6, 8};
    constexpr int64_t kChannels[] = {1, 2, 3, 4};
    const bool conv = op == Op::kConv2d;
    int x = ctx_.Pick([](const ValueFacts& f) {
      const Shape& s = f.type.shape;
      return IsFloat(f.type.dtype) && s.rank() == 4 && s.dim(1) <= 8 && s.dim(2) <= 16 &&
             s.dim(3) <= 16 && s.num_elements() > 0;
    });
    if (x < 0) {
      const Shape shape{rng_.Range(1, 2), rng_.Pick(kChannels), rng_.Pick(kSpatial),
                        rng_.Pick(kSpatial)};
      if (shape.num_elements() > max()) return Skip("window input too large");
      RK_ASSIGN_OR_RETURN(x, ctx_.Produce(TensorType(ctx_.RandomFloatDType(), shape), false));
    }
    RK_ASSIGN_OR_RETURN(x, ctx_.Fit(op, 0, x, ctx_.type(x)));
    const Shape in = ctx_.type(x).shape;
    std::vector<int64_t> kernel(2), strides(2), dilations(2, 1), pads(4, 0);
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t size = in.dim(2 + axis);
      kernel[axis] = rng_.Range(1, 3);
      strides[axis] = rng_.Range(1, 2);
      if (op != Op::kAvgPool2d && rng_.Chance(0.3)) dilations[axis] = 2;
      pads[axis] = rng_.Range(0, kernel[axis] - 1);
      pads[axis + 2] = rng_.Range(0, kernel[axis] - 1);
      // Shrink the window until it fits the padded input.
      while (dilations[axis] * (kernel[axis] - 1) + 1 > size + pads[axis] + pads[axis + 2]) {
        if (dilations[axis] > 1) {
          dilations[axis] = 1;
        } else {
          --kernel[axis];
          pads[axis] = std::min(pads[axis], kernel[axis] - 1);
          pads[axis + 2] = std::min(pads[axis + 2], kernel[axis] - 1);
        }
      }
    }
    compiler::Attributes attrs = {{"strides", strides}, {"pads", pads}};
    if (op != Op::kAvgPool2d) attrs.Set("dilations", dilations);
    if (op == Op::kAvgPool2d) attrs.Set("count_include_pad", rng_.Chance(0.5));
    if (!conv) {
      attrs.Set("kernel", kernel);
      const compiler::Window2d window = compiler::ReadWindow(op, attrs);
      // Undilated, with pads below the kernel, every window reaches the
      // input.
      if (!window.EveryWindowReal(0, in.dim(2)) || !window.EveryWindowReal(1, in.dim(3))) {
        attrs.Set("dilations", std::vector<int64_t>{1, 1});
      }
      return ctx_.EmitBounded(op, {x}, std::move(attrs)).status();
    }
    const int64_t channels = in.dim(1);
    std::vector<int64_t> divisors;
    for (int64_t g = 1; g <= channels; ++g) {
      if (channels % g == 0) divisors.push_back(g);
    }
    const int64_t groups = rng_.Pick(divisors);
    attrs.Set("groups", groups);
    const Shape weights{groups * rng_.Range(1, 3), channels / groups, kernel[0], kernel[1]};
    int w = -1;
    if (rng_.Chance(0.3)) {
      w = ctx_.Pick([&](const ValueFacts& f) {
        return f.type.dtype == ctx_.type(x).dtype && f.type.shape == weights;
      });
    }
    if (w < 0) {
      RK_ASSIGN_OR_RETURN(w, ctx_.Produce(TensorType(ctx_.type(x).dtype, weights), false));
    }
    return ctx_.EmitBounded(op, {x, w}, std::move(attrs)).status();
  }

  absl::Status Composite(Op op) {
    int x;
    RK_ASSIGN_OR_RETURN(x, Operand(IsFloatValue, ctx_.RandomFloatDType(), 1, false));
    RK_ASSIGN_OR_RETURN(x, ctx_.Fit(op, 0, x, ctx_.type(x)));
    const TensorType t = ctx_.type(x);
    const int rank = t.shape.rank();
    if (op == Op::kSoftmax || op == Op::kLogSoftmax) {
      const int64_t axis = static_cast<int64_t>(rng_.Below(rank)) - (rng_.Chance(0.3) ? rank : 0);
      return ctx_.EmitBounded(op, {x}, {{"axis", axis}}).status();
    }
    const TensorType param(t.dtype, Shape{t.shape.dim(rank - 1)});
    std::vector<int> operands = {x};
    for (int i = 0; i < (op == Op::kLayerNorm ? 2 : 1); ++i) {
      int p;
      RK_ASSIGN_OR_RETURN(p, ctx_.Produce(param, false));
      operands.push_back(p);
    }
    const bool low = compiler::IsLowPrecision(t.dtype);
    constexpr double kEpsHigh[] = {1e-5, 1e-3, 0.1};
    constexpr double kEpsLow[] = {0.1, 0.5};
    const double eps = low ? rng_.Pick(kEpsLow) : rng_.Pick(kEpsHigh);
    const int64_t axis = rng_.Chance(0.5) ? -1 : rank - 1;
    return ctx_.EmitBounded(op, operands, {{"axis", axis}, {"eps", eps}}).status();
  }

  GenContext& ctx_;
  Rng& rng_;
};

}  // namespace

std::vector<compiler::HostTensor> GeneratedGraph::MakeInputs(uint64_t data_seed) const {
  std::vector<compiler::HostTensor> inputs;
  const std::vector<compiler::NodeId> ids = graph.inputs();
  for (size_t i = 0; i < ids.size(); ++i) {
    inputs.push_back(compiler::HostTensor::Random(
        graph.type(ids[i]), compiler::SeedForInput(data_seed, static_cast<int>(i)),
        i < input_specs.size() ? input_specs[i] : compiler::RandomSpec{}));
  }
  return inputs;
}

absl::StatusOr<GeneratedGraph> Generate(uint64_t seed, const GeneratorOptions& options) {
  GenContext ctx(options, seed);
  OpBuilder builder(ctx);
  std::vector<Op> ops = options.ops;
  if (ops.empty()) {
    for (Op op : compiler::kAllOps) {
      if (op != Op::kInput) ops.push_back(op);
    }
  }
  const int attempts = 50 + 20 * options.nodes;
  for (int i = 0; i < attempts && (ctx.compute_nodes() < options.nodes || ctx.compute_nodes() == 0);
       ++i) {
    // The pattern draw happens only with pass_patterns, so default streams
    // are unchanged.
    absl::Status status = options.pass_patterns && ctx.rng().Chance(0.3)
                              ? AddPassPattern(ctx)
                              : builder.Add(ctx.rng().Pick(ops));
    if (!status.ok() && !IsSkip(status)) {
      return absl::Status(status.code(),
                          absl::StrCat("seed ", seed, ": ", std::string(status.message())));
    }
  }
  return ctx.Finish();
}

void OpCoverage::Add(const compiler::Graph& graph) {
  for (const compiler::Node& node : graph.nodes()) ++counts[static_cast<int>(node.op)];
}

void OpCoverage::Merge(const OpCoverage& other) {
  for (int i = 0; i < kNumOps; ++i) counts[i] += other.counts[i];
}

std::vector<Op> OpCoverage::Missing() const {
  std::vector<Op> missing;
  for (Op op : compiler::kAllOps) {
    if (count(op) == 0) missing.push_back(op);
  }
  return missing;
}

}  // namespace rk::compiler::generator
