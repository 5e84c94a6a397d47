#include "compiler/ir/random_graph_testutil.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/builder.h"
#include "compiler/ir/half.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler {
namespace {

constexpr Op kUnaryFloat[] = {Op::kNeg,  Op::kAbs,     Op::kExp,  Op::kLog, Op::kSqrt,
                              Op::kRsqrt, Op::kReciprocal, Op::kTanh, Op::kSigmoid,
                              Op::kRelu, Op::kErf,     Op::kSin,  Op::kCos, Op::kGelu};
constexpr Op kBinary[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv,
                          Op::kPow, Op::kMaximum, Op::kMinimum};
constexpr Op kCompare[] = {Op::kEq, Op::kNe, Op::kLt, Op::kLe, Op::kGt, Op::kGe};
constexpr Op kReduce[] = {Op::kReduceSum, Op::kReduceMean, Op::kReduceMax, Op::kReduceMin};
constexpr DType kFloats[] = {DType::kF16, DType::kBF16, DType::kF32, DType::kF64};

// Values whose text form is exact in every float dtype.
double SpecialValue(std::mt19937_64& rng) {
  constexpr double kSpecials[] = {0.0, -0.0, 1.0, -2.5, 0.1, 1e-40, 65504.0, 3.0e38, 1e300,
                                  5e-324};
  switch (rng() % 4) {
    case 0: return std::numeric_limits<double>::infinity() * (rng() % 2 ? 1 : -1);
    case 1: return std::copysign(std::numeric_limits<double>::quiet_NaN(), rng() % 2 ? 1 : -1);
    default: return kSpecials[rng() % std::size(kSpecials)];
  }
}

uint64_t RandomBits(std::mt19937_64& rng, int bits) {
  return bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
}

void SetRandomFloat(HostTensor& t, int64_t i, std::mt19937_64& rng) {
  bool special = rng() % 3 == 0;
  double v = special ? SpecialValue(rng) : 0;
  switch (t.dtype()) {
    case DType::kF64:
      if (!special) {
        uint64_t bits = RandomBits(rng, 64);
        std::memcpy(&v, &bits, 8);
        if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
      }
      t.data<double>()[i] = v;
      break;
    case DType::kF32: {
      if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
        v = std::copysign(std::numeric_limits<double>::infinity(), v);
      }
      float f = static_cast<float>(v);
      if (!special) {
        uint32_t bits = static_cast<uint32_t>(RandomBits(rng, 32));
        std::memcpy(&f, &bits, 4);
      }
      if (std::isnan(f)) f = std::copysign(std::numeric_limits<float>::quiet_NaN(), f);
      t.data<float>()[i] = f;
      break;
    }
    default: {
      bool half = t.dtype() == DType::kF16;
      uint16_t bits = static_cast<uint16_t>(RandomBits(rng, 16));
      if (special) bits = half ? DoubleToHalf(v) : DoubleToBFloat16(v);
      double back = half ? HalfToDouble(bits) : BFloat16ToDouble(bits);
      if (std::isnan(back)) bits = (bits & 0x8000) | (half ? 0x7e00 : 0x7fc0);
      t.data<uint16_t>()[i] = bits;
    }
  }
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed), b_(GraphName()) {}

  Graph Run(int steps) {
    int num_inputs = 1 + static_cast<int>(rng_() % 3);
    for (int i = 0; i < num_inputs; ++i) {
      DType dtype = rng_() % 5 == 0 ? DType::kI32 : kFloats[rng_() % 4];
      b_.Input(NextName(/*force=*/rng_() % 4 != 0), TensorType(dtype, RandomShape()));
    }
    for (int i = 0; i < steps; ++i) Step();
    int num_outputs = 1 + static_cast<int>(rng_() % 3);
    for (int i = 0; i < num_outputs; ++i) (void)b_.Output(NodeId(rng_() % b_.num_nodes()));
    absl::StatusOr<Graph> g = b_.Build();
    if (!g.ok() || !Verify(*g).ok()) return Graph();
    return *std::move(g);
  }

 private:
  std::string GraphName() {
    const char* kNames[] = {"main", "block", "g.v2", "with space", "", "x\"q"};
    return kNames[rng_() % std::size(kNames)];
  }

  std::string NextName(bool force = false) {
    if (!force && rng_() % 2 == 0) return "";
    const char* kStems[] = {"x", "h.", "t_", "Layer0.w", "_"};
    return std::string(kStems[rng_() % std::size(kStems)]) + std::to_string(counter_++);
  }

  Shape RandomShape() {
    std::vector<int64_t> dims(rng_() % 4);
    for (int64_t& d : dims) d = 1 + static_cast<int64_t>(rng_() % 4);
    return Shape(std::move(dims));
  }

  // A random existing node satisfying `pred`, if any.
  std::optional<NodeId> Pick(const std::function<bool(const TensorType&)>& pred) {
    std::vector<NodeId> candidates;
    for (int i = 0; i < b_.num_nodes(); ++i) {
      if (pred(b_.type(NodeId(i)))) candidates.push_back(NodeId(i));
    }
    if (candidates.empty()) return std::nullopt;
    return candidates[rng_() % candidates.size()];
  }

  static bool IsF(const TensorType& t) { return IsFloat(t.dtype); }

  void Add(Op op, std::vector<NodeId> operands, Attributes attrs = {}) {
    (void)b_.Add(op, operands, std::move(attrs), NextName());
  }

  // A constant of `type` with random exact values.
  NodeId Literal(const TensorType& type) {
    absl::StatusOr<NodeId> id = b_.Constant(RandomLiteral(type, rng_), NextName());
    return id.ok() ? *id : NodeId();
  }

  void Step() {
    auto any = [](const TensorType&) { return true; };
    std::optional<NodeId> x = Pick(IsF);
    switch (rng_() % 14) {
      case 0:
        if (x) Add(kUnaryFloat[rng_() % std::size(kUnaryFloat)], {*x});
        break;
      case 1: {
        std::optional<NodeId> a = Pick([](const TensorType& t) { return t.dtype != DType::kBool; });
        if (!a) break;
        TensorType t = b_.type(*a);
        // The second operand: same type, a trailing-dims broadcast, or itself.
        std::vector<int64_t> dims(t.shape.dims().begin() + (t.shape.rank() > 0 ? rng_() % (t.shape.rank() + 1) : 0),
                                  t.shape.dims().end());
        NodeId other = rng_() % 3 == 0 ? *a : Literal(TensorType(t.dtype, Shape(dims)));
        Op op = rng_() % 2 ? kBinary[rng_() % std::size(kBinary)] : kCompare[rng_() % std::size(kCompare)];
        Add(op, {*a, other});
        break;
      }
      case 2: {
        std::optional<NodeId> c = Pick([](const TensorType& t) { return t.dtype == DType::kBool; });
        if (!c) break;
        Op op = std::array{Op::kAnd, Op::kOr, Op::kNot, Op::kWhere}[rng_() % 4];
        if (op == Op::kNot) {
          Add(op, {*c});
        } else if (op == Op::kWhere) {
          NodeId v = Literal(TensorType(kFloats[rng_() % 4], b_.type(*c).shape));
          Add(op, {*c, v, v});
        } else {
          Add(op, {*c, *c});
        }
        break;
      }
      case 3: {
        std::optional<NodeId> a = Pick(any);
        Attributes attrs{{"dtype", kAllDTypes[rng_() % std::size(kAllDTypes)]}};
        if (a) Add(Op::kCast, {*a}, attrs);
        break;
      }
      case 4: {
        std::optional<NodeId> a = Pick([](const TensorType& t) { return t.shape.rank() > 0 && t.dtype != DType::kBool; });
        if (!a) break;
        int64_t axis = static_cast<int64_t>(rng_() % b_.type(*a).shape.rank());
        bool keepdim = rng_() % 2;
        if (rng_() % 4 == 0) {
          Add(Op::kArgmax, {*a}, {{"axis", axis}, {"keepdim", keepdim}});
        } else {
          Add(kReduce[rng_() % 4], {*a}, {{"axes", std::vector<int64_t>{axis}}, {"keepdim", keepdim}});
        }
        break;
      }
      case 5: {
        std::optional<NodeId> a = Pick(any);
        if (!a) break;
        int64_t n = b_.type(*a).num_elements();
        std::vector<int64_t> shape = rng_() % 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n};
        Add(Op::kReshape, {*a}, {{"shape", shape}});
        break;
      }
      case 6: {
        std::optional<NodeId> a = Pick(any);
        if (!a) break;
        std::vector<int64_t> perm(b_.type(*a).shape.rank());
        for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
        std::shuffle(perm.begin(), perm.end(), rng_);
        Add(Op::kTranspose, {*a}, {{"perm", perm}});
        break;
      }
      case 7: {
        std::optional<NodeId> a = Pick(any);
        if (!a) break;
        std::vector<int64_t> dims = b_.type(*a).shape.dims();
        dims.insert(dims.begin(), 2);
        Add(Op::kBroadcastTo, {*a}, {{"shape", dims}});
        break;
      }
      case 8: {
        std::optional<NodeId> a = Pick([](const TensorType& t) { return t.shape.rank() > 0; });
        if (!a) break;
        const Shape& s = b_.type(*a).shape;
        std::vector<int64_t> start(s.rank(), 0), limit = s.dims(), stride(s.rank(), 1);
        stride[0] = 1 + static_cast<int64_t>(rng_() % 2);
        if (rng_() % 2) {
          Add(Op::kSlice, {*a}, {{"start", start}, {"limit", limit}, {"stride", stride}});
        } else {
          Add(Op::kConcat, {*a, *a}, {{"axis", static_cast<int64_t>(rng_() % s.rank())}});
        }
        break;
      }
      case 9: {
        std::optional<NodeId> a = Pick(any);
        if (!a) break;
        absl::StatusOr<NodeId> u =
            b_.Add(Op::kUnsqueeze, {*a}, {{"axes", std::vector<int64_t>{0}}}, NextName());
        if (u.ok() && rng_() % 2) Add(Op::kSqueeze, {*u}, {{"axes", std::vector<int64_t>{0}}});
        break;
      }
      case 10: {
        std::optional<NodeId> a = Pick([](const TensorType& t) { return IsF(t) && t.shape.rank() >= 2; });
        if (!a) break;
        int r = b_.type(*a).shape.rank();
        std::vector<int64_t> perm(r);
        for (int i = 0; i < r; ++i) perm[i] = i;
        std::swap(perm[r - 1], perm[r - 2]);
        absl::StatusOr<NodeId> t = b_.Add(Op::kTranspose, {*a}, {{"perm", perm}});
        if (t.ok()) Add(Op::kMatmul, {*a, *t});
        break;
      }
      case 11: {
        std::optional<NodeId> a = Pick([](const TensorType& t) { return IsF(t) && t.shape.rank() >= 1; });
        if (!a) break;
        const TensorType& t = b_.type(*a);
        TensorType param(t.dtype, Shape({t.shape.dim(t.shape.rank() - 1)}));
        double eps = rng_() % 2 ? 1e-5 : SpecialValue(rng_);
        switch (rng_() % 4) {
          case 0: Add(Op::kSoftmax, {*a}, {{"axis", int64_t{-1}}}); break;
          case 1: Add(Op::kLogSoftmax, {*a}, {{"axis", int64_t{t.shape.rank() - 1}}}); break;
          case 2: Add(Op::kLayerNorm, {*a, Literal(param), Literal(param)}, {{"axis", int64_t{-1}}, {"eps", eps}}); break;
          default: Add(Op::kRmsNorm, {*a, Literal(param)}, {{"axis", int64_t{-1}}, {"eps", eps}});
        }
        break;
      }
      case 12:
        Literal(TensorType(kAllDTypes[rng_() % std::size(kAllDTypes)], RandomShape()));
        break;
      default: {
        TensorType t(kAllDTypes[rng_() % std::size(kAllDTypes)], RandomShape());
        if (rng_() % 2 && t.shape.rank() > 0) {
          Add(Op::kIota, {}, {{"axis", int64_t{0}}, {"dtype", t.dtype}, {"shape", t.shape.dims()}});
        } else {
          double v = rng_() % 2 ? static_cast<double>(rng_() % 7) - 3 : SpecialValue(rng_);
          if (!IsFloat(t.dtype)) v = std::isfinite(v) ? std::trunc(v) : 0.0;
          Add(Op::kFull, {}, {{"value", v}, {"dtype", t.dtype}, {"shape", t.shape.dims()}});
        }
      }
    }
  }

  std::mt19937_64 rng_;
  GraphBuilder b_;
  int counter_ = 0;
};

}  // namespace

HostTensor RandomLiteral(const TensorType& type, std::mt19937_64& rng) {
  HostTensor t(type);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (type.dtype) {
      case DType::kBool: t.data<uint8_t>()[i] = rng() % 2; break;
      case DType::kI32: t.data<int32_t>()[i] = static_cast<int32_t>(rng()); break;
      case DType::kI64: t.data<int64_t>()[i] = static_cast<int64_t>(rng()); break;
      default: SetRandomFloat(t, i, rng);
    }
  }
  return t;
}

Graph RandomGraph(uint64_t seed, int steps) { return Generator(seed).Run(steps); }

}  // namespace rk::compiler
