// Every op of ops.def, table-driven: an op with a gradient rule is checked
// against central finite differences on small random graphs (random shapes,
// broadcasting and size-1 dims); a non-differentiable op must give a zero
// gradient; an op with no decision in vjp.cc's table fails
// EveryOpHasADecision, and an op with a rule but no case here fails
// EveryRuleHasCases.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "compiler/autodiff/gradient_check_test_util.h"
#include "compiler/autodiff/joint_graph.h"
#include "compiler/autodiff/vjp.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rk::compiler::autodiff {
namespace {

using Rng = std::mt19937_64;

int Pick(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool Coin(Rng& rng) { return Pick(rng, 0, 1) == 1; }

RandomSpec Range(double low, double high) {
  RandomSpec spec;
  spec.low = low;
  spec.high = high;
  return spec;
}

Shape RandomShape(Rng& rng, int min_rank, int max_rank, int max_dim = 3) {
  std::vector<int64_t> dims(Pick(rng, min_rank, max_rank));
  for (int64_t& d : dims) d = Pick(rng, 1, max_dim);
  return Shape(dims);
}

// A shape that broadcasts against `full`: some leading dims dropped, some dims 1.
Shape BroadcastPartner(Rng& rng, const Shape& full) {
  std::vector<int64_t> dims(full.dims().begin() + Pick(rng, 0, full.rank()), full.dims().end());
  for (int64_t& d : dims) {
    if (Pick(rng, 0, 2) == 0) d = 1;
  }
  return Shape(dims);
}

// A random case graph, built with inferred types.
struct Case {
  GraphBuilder b{"case"};
  std::vector<RandomSpec> specs;
  std::vector<NodeId> outputs;
  int next = 0;

  NodeId In(const Shape& shape, bool grad = true, RandomSpec spec = {}, DType dt = DType::kF64) {
    specs.push_back(spec);
    return b.Input(absl::StrCat("x", next++), TensorType(dt, shape), grad);
  }
  NodeId Add(Op op, std::vector<NodeId> operands, Attributes attrs = {}) {
    absl::StatusOr<NodeId> id = b.Add(op, operands, std::move(attrs));
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : NodeId();
  }
  NodeId Const(HostTensor value) { return *b.Constant(std::move(value)); }
};

// Builds one random case for `op` into `c`; false if the op has no operands.
bool MakeCase(Op op, Rng& rng, Case& c) {
  const OpKind kind = GetOpKind(op);
  switch (op) {
    case Op::kInput:
    case Op::kConstant:
    case Op::kFull:
    case Op::kIota: return false;
    default: break;
  }
  if (kind == OpKind::kUnary) {
    const bool positive = op == Op::kLog || op == Op::kSqrt || op == Op::kRsqrt ||
                          op == Op::kReciprocal;
    const Shape s = RandomShape(rng, 0, 3);
    NodeId x = c.In(s, true, positive ? Range(0.5, 2.0) : Range(-2.0, 2.0));
    Attributes attrs;
    if (op == Op::kClip) {
      if (Coin(rng)) attrs.Set("min", -0.5);
      if (Coin(rng) || attrs.empty()) attrs.Set("max", 0.7);
    }
    c.outputs.push_back(c.Add(op, {x}, attrs));
    return true;
  }
  if (kind == OpKind::kBinary || kind == OpKind::kCompare) {
    const Shape full = RandomShape(rng, 1, 3);
    Shape sa = full, sb = BroadcastPartner(rng, full);
    if (Coin(rng)) std::swap(sa, sb);
    RandomSpec ra = Range(-2, 2), rb = Range(-2, 2);
    if (op == Op::kPow) ra = Range(0.5, 2);
    if (op == Op::kDiv || op == Op::kMod || op == Op::kFloorDiv) rb = Range(0.5, 2);
    if (op == Op::kMod || op == Op::kFloorDiv) ra = Range(-3, 3);
    NodeId a = c.In(sa, true, ra), b = c.In(sb, true, rb);
    NodeId y = c.Add(op, {a, b});
    if (kind == OpKind::kCompare) y = c.Add(Op::kCast, {y}, {{"dtype", DType::kF64}});
    c.outputs.push_back(y);
    return true;
  }
  switch (op) {
    case Op::kAnd:
    case Op::kOr:
    case Op::kNot: {
      const Shape s = RandomShape(rng, 1, 2);
      NodeId x = c.In(s);
      NodeId zero = c.Add(Op::kFull, {}, {{"value", 0.0}, {"dtype", DType::kF64}, {"shape", std::vector<int64_t>{}}});
      NodeId p = c.Add(Op::kGt, {x, zero});
      NodeId q = c.Add(Op::kLt, {x, c.Add(Op::kFull, {}, {{"value", 0.5}, {"dtype", DType::kF64}, {"shape", std::vector<int64_t>{}}})});
      NodeId l = op == Op::kNot ? c.Add(op, {p}) : c.Add(op, {p, q});
      NodeId f = c.Add(Op::kCast, {l}, {{"dtype", DType::kF64}});
      c.outputs.push_back(c.Add(Op::kMul, {f, x}));  // the gradient is the mask
      return true;
    }
    case Op::kWhere: {
      const Shape full = RandomShape(rng, 1, 3);
      NodeId cond_src = c.In(BroadcastPartner(rng, full), false);
      NodeId a = c.In(full), b = c.In(BroadcastPartner(rng, full));
      NodeId zero = c.Add(Op::kFull, {}, {{"value", 0.0}, {"dtype", DType::kF64}, {"shape", std::vector<int64_t>{}}});
      NodeId cond = c.Add(Op::kGt, {cond_src, zero});
      c.outputs.push_back(Coin(rng) ? c.Add(op, {cond, a, b}) : c.Add(op, {cond, b, a}));
      return true;
    }
    case Op::kCast: {
      // f32 -> f64 -> f32 round trip and an f64 -> f64 product: the gradient
      // is cast back to each operand's dtype.
      const Shape s = RandomShape(rng, 0, 2);
      NodeId x = c.In(s, true, {}, DType::kF32);
      NodeId w = c.In(s);
      NodeId wide = c.Add(Op::kCast, {x}, {{"dtype", DType::kF64}});
      c.outputs.push_back(c.Add(Op::kMul, {wide, w}));
      return true;
    }
    case Op::kReduceSum:
    case Op::kReduceMean:
    case Op::kReduceMax:
    case Op::kReduceMin: {
      const Shape s = RandomShape(rng, 1, 3);
      NodeId x = c.In(s);
      std::vector<int64_t> axes;
      for (int i = 0; i < s.rank(); ++i) {
        if (Coin(rng)) axes.push_back(Coin(rng) ? i : i - s.rank());
      }
      if (axes.empty()) axes.push_back(0);
      c.outputs.push_back(c.Add(op, {x}, {{"axes", axes}, {"keepdim", Coin(rng)}}));
      return true;
    }
    case Op::kArgmax: {
      const Shape s = RandomShape(rng, 1, 3);
      NodeId x = c.In(s);
      NodeId i = c.Add(op, {x}, {{"axis", int64_t{0}}, {"keepdim", Coin(rng)}});
      c.outputs.push_back(c.Add(Op::kCast, {i}, {{"dtype", DType::kF64}}));
      c.outputs.push_back(c.Add(Op::kReduceMax, {x}, {{"axes", std::vector<int64_t>{0}}, {"keepdim", false}}));
      return true;
    }
    case Op::kCumsum: {
      const Shape s = RandomShape(rng, 1, 3, 4);
      NodeId x = c.In(s);
      c.outputs.push_back(c.Add(op, {x},
                                {{"axis", int64_t{Pick(rng, 0, s.rank() - 1)}},
                                 {"exclusive", Coin(rng)},
                                 {"reverse", Coin(rng)}}));
      return true;
    }
    case Op::kReshape: {
      const Shape s = RandomShape(rng, 1, 3);
      NodeId x = c.In(s);
      const int64_t n = s.num_elements();
      std::vector<int64_t> to = Coin(rng) ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n, 1};
      c.outputs.push_back(c.Add(op, {x}, {{"shape", to}}));
      return true;
    }
    case Op::kTranspose: {
      const Shape s = RandomShape(rng, 2, 4);
      NodeId x = c.In(s);
      std::vector<int64_t> perm(s.rank());
      for (int i = 0; i < s.rank(); ++i) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      c.outputs.push_back(c.Add(op, {x}, {{"perm", perm}}));
      return true;
    }
    case Op::kBroadcastTo: {
      const Shape full = RandomShape(rng, 1, 3);
      NodeId x = c.In(BroadcastPartner(rng, full));
      std::vector<int64_t> to = full.dims();
      if (Coin(rng)) to.insert(to.begin(), 2);
      c.outputs.push_back(c.Add(op, {x}, {{"shape", to}}));
      return true;
    }
    case Op::kSlice: {
      const Shape s = RandomShape(rng, 1, 3, 6);
      NodeId x = c.In(s);
      std::vector<int64_t> start, limit, stride;
      for (int64_t d : s.dims()) {
        const int64_t b = Pick(rng, 0, d - 1);
        start.push_back(b);
        limit.push_back(Pick(rng, b + 1, d));
        stride.push_back(Pick(rng, 1, 3));
      }
      c.outputs.push_back(c.Add(op, {x}, {{"start", start}, {"limit", limit}, {"stride", stride}}));
      return true;
    }
    case Op::kConcat: {
      const Shape s = RandomShape(rng, 1, 3);
      const int axis = Pick(rng, 0, s.rank() - 1);
      std::vector<NodeId> parts;
      for (int k = Pick(rng, 1, 3); k > 0; --k) {
        std::vector<int64_t> dims = s.dims();
        dims[axis] = Pick(rng, 1, 3);
        parts.push_back(c.In(Shape(dims), k != 2));
      }
      c.outputs.push_back(c.Add(op, parts, {{"axis", int64_t{axis - (Coin(rng) ? s.rank() : 0)}}}));
      return true;
    }
    case Op::kSqueeze: {
      NodeId x = c.In(Shape{2, 1, 3, 1});
      c.outputs.push_back(c.Add(op, {x}, {{"axes", Coin(rng) ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{-1}}}));
      return true;
    }
    case Op::kUnsqueeze: {
      NodeId x = c.In(RandomShape(rng, 0, 2));
      c.outputs.push_back(c.Add(op, {x}, {{"axes", Coin(rng) ? std::vector<int64_t>{0} : std::vector<int64_t>{0, -1}}}));
      return true;
    }
    case Op::kPad: {
      const Shape s = RandomShape(rng, 1, 3);
      NodeId x = c.In(s);
      std::vector<int64_t> pads(2 * s.rank());
      for (int64_t& p : pads) p = Pick(rng, 0, 2);
      c.outputs.push_back(c.Add(op, {x}, {{"pads", pads}, {"value", 0.5}}));
      return true;
    }
    case Op::kMatmul: {
      const int64_t m = Pick(rng, 1, 3), k = Pick(rng, 1, 3), n = Pick(rng, 1, 3);
      std::vector<int64_t> ba, bb;
      switch (Pick(rng, 0, 3)) {
        case 0: break;
        case 1: ba = {2}; break;
        case 2: ba = {2, 1}; bb = {3}; break;
        default: ba = {1}; bb = {2}; break;
      }
      ba.push_back(m);
      ba.push_back(k);
      bb.push_back(k);
      bb.push_back(n);
      NodeId a = c.In(Shape(ba)), b = c.In(Shape(bb));
      c.outputs.push_back(c.Add(op, {a, b}));
      return true;
    }
    case Op::kGather: {
      const Shape s = RandomShape(rng, 1, 3, 4);
      const int axis = Pick(rng, 0, s.rank() - 1);
      NodeId data = c.In(s);
      const Shape is = RandomShape(rng, 0, 2, 4);
      HostTensor idx(TensorType(Coin(rng) ? DType::kI32 : DType::kI64, is));
      const int64_t size = s.dim(axis);
      // Repeats, negative indices and (sometimes) one out of range.
      for (int64_t i = 0; i < idx.num_elements(); ++i) idx.SetInt(i, Pick(rng, -size, size - 1 + (i == 0 ? 1 : 0)));
      c.outputs.push_back(c.Add(op, {data, c.Const(idx)}, {{"axis", int64_t{axis}}}));
      return true;
    }
    case Op::kConv2d: {
      const int64_t groups = Pick(rng, 1, 2);
      const int64_t cin = groups * Pick(rng, 1, 2), cout = groups * Pick(rng, 1, 2);
      const int64_t kh = Pick(rng, 1, 3), kw = Pick(rng, 1, 2);
      const std::vector<int64_t> strides = {Pick(rng, 1, 2), Pick(rng, 1, 2)};
      const std::vector<int64_t> dilations = {Pick(rng, 1, 2), Pick(rng, 1, 2)};
      const std::vector<int64_t> pads = {Pick(rng, 0, 1), Pick(rng, 0, 1), Pick(rng, 0, 1),
                                         Pick(rng, 0, 2)};
      NodeId x = c.In(Shape{Pick(rng, 1, 2), cin, Pick(rng, 5, 6), Pick(rng, 4, 5)});
      NodeId w = c.In(Shape{cout, cin / groups, kh, kw});
      c.outputs.push_back(c.Add(op, {x, w},
                                {{"strides", strides}, {"pads", pads},
                                 {"dilations", dilations}, {"groups", groups}}));
      return true;
    }
    case Op::kMaxPool2d:
    case Op::kAvgPool2d: {
      const std::vector<int64_t> kernel = {Pick(rng, 1, 3), Pick(rng, 2, 3)};
      const std::vector<int64_t> strides = {Pick(rng, 1, 2), Pick(rng, 1, 2)};
      // No window of padding only (its max is -inf, and so is the loss).
      const int64_t ph = kernel[0] > 1 ? 1 : 0;
      const std::vector<int64_t> pads = {Pick(rng, 0, ph), Pick(rng, 0, 1), Pick(rng, 0, ph),
                                         Pick(rng, 0, 1)};
      NodeId x = c.In(Shape{Pick(rng, 1, 2), Pick(rng, 1, 2), Pick(rng, 5, 6), Pick(rng, 4, 6)});
      Attributes attrs{{"kernel", kernel}, {"strides", strides}, {"pads", pads}};
      if (op == Op::kMaxPool2d) {
        attrs.Set("dilations", std::vector<int64_t>{Pick(rng, 1, 2), 1});
      } else {
        attrs.Set("count_include_pad", Coin(rng));
      }
      c.outputs.push_back(c.Add(op, {x}, attrs));
      return true;
    }
    case Op::kGelu: {
      NodeId x = c.In(RandomShape(rng, 0, 3), true, Range(-3, 3));
      c.outputs.push_back(c.Add(op, {x}));
      return true;
    }
    case Op::kSoftmax:
    case Op::kLogSoftmax: {
      const Shape s = RandomShape(rng, 1, 3, 4);
      NodeId x = c.In(s, true, Range(-3, 3));
      c.outputs.push_back(c.Add(op, {x}, {{"axis", int64_t{Pick(rng, -s.rank(), s.rank() - 1)}}}));
      return true;
    }
    case Op::kLayerNorm:
    case Op::kRmsNorm: {
      const Shape s = RandomShape(rng, 1, 3, 4);
      const int64_t d = s.dim(s.rank() - 1);
      NodeId x = c.In(s, true, Range(-2, 2));
      NodeId gamma = c.In(Shape{d}, Coin(rng), Range(0.5, 1.5));
      std::vector<NodeId> operands = {x, gamma};
      if (op == Op::kLayerNorm) operands.push_back(c.In(Shape{d}));
      c.outputs.push_back(c.Add(op, operands, {{"axis", int64_t{-1}}, {"eps", 1e-5}}));
      return true;
    }
    default:
      ADD_FAILURE() << "no gradient-check case for op " << OpName(op);
      return false;
  }
}

absl::StatusOr<Graph> BuildCase(Case& c) {
  for (NodeId out : c.outputs) RK_RETURN_IF_ERROR(c.b.Output(out));
  return c.b.Build();
}

std::vector<HostTensor> CaseInputs(const Graph& g, const std::vector<RandomSpec>& specs,
                                   uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (NodeId id : g.inputs()) {
    inputs.push_back(HostTensor::Random(g.type(id), seed * 131 + id.value, specs[id.value]));
  }
  return inputs;
}

class GradientCheckTest : public ::testing::TestWithParam<Op> {};

TEST_P(GradientCheckTest, EveryOpHasADecision) {
  const VjpEntry* entry = VjpFor(GetParam());
  ASSERT_NE(entry, nullptr) << "ops.def's " << OpName(GetParam())
                            << " has no row in compiler/autodiff/vjp.cc";
  EXPECT_EQ(entry->op, GetParam());
  EXPECT_EQ(entry->kind == VjpKind::kRule, entry->rule != nullptr);
  const bool source = GetOpKind(GetParam()) == OpKind::kSource;
  EXPECT_EQ(entry->kind == VjpKind::kSource, source);
}

TEST_P(GradientCheckTest, GradientsMatchFiniteDifferences) {
  const Op op = GetParam();
  const VjpEntry* entry = VjpFor(op);
  ASSERT_NE(entry, nullptr);
  if (entry->kind == VjpKind::kSource) return;
  Rng rng(1000 + static_cast<int>(op));
  constexpr int kTrials = 20;
  for (int trial = 0; trial < kTrials; ++trial) {
    Case c;
    ASSERT_TRUE(MakeCase(op, rng, c)) << "every op with operands needs a case";
    absl::StatusOr<Graph> g = BuildCase(c);
    ASSERT_TRUE(g.ok()) << g.status();
    SCOPED_TRACE(PrintInline(*g));
    GradSpec spec = GradSpecFromMarks(*g);
    ASSERT_FALSE(spec.inputs.empty());
    std::vector<HostTensor> inputs = CaseInputs(*g, c.specs, trial + 1);
    absl::StatusOr<GradientCheckResult> r = CheckGradients(*g, spec, inputs, {}, trial + 1);
    if (entry->kind == VjpKind::kUnsupported) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
      EXPECT_THAT(r.status().message(), ::testing::HasSubstr(std::string(OpName(op))));
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->mismatch, "");
    EXPECT_TRUE(r->forward_equal);
    EXPECT_GT(r->checked, 0);
    if (entry->kind == VjpKind::kNonDifferentiable && GetOpKind(op) != OpKind::kLogic) {
      // No gradient flows through the op: the marked inputs that reach the
      // outputs only through it get exact zeros (argmax's case also has a
      // differentiable reduce_max, so it is checked by the FD only).
      if (op == Op::kArgmax) continue;
      for (int k = r->joint_outputs.size() - static_cast<int>(spec.inputs.size());
           k < static_cast<int>(r->joint_outputs.size()); ++k) {
        const HostTensor& grad = r->joint_outputs[k];
        for (int64_t i = 0; i < grad.num_elements(); ++i) ASSERT_EQ(grad.GetDouble(i), 0.0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, GradientCheckTest, ::testing::ValuesIn(kAllOps),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(OpName(info.param));
                         });

// The tie rule: reduce_max over a row holding its maximum twice gives each
// copy half the gradient, which sums to the whole gradient of the duplicated
// input (what central differences see).
TEST(GradientCheckTieTest, ReduceMaxSplitsTiesEqually) {
  Case c;
  NodeId x = c.In(Shape{3});
  NodeId twice = c.Add(Op::kConcat, {x, x}, {{"axis", int64_t{0}}});
  c.outputs.push_back(c.Add(Op::kReduceMax, {twice}, {{"axes", std::vector<int64_t>{0}}, {"keepdim", false}}));
  absl::StatusOr<Graph> g = BuildCase(c);
  ASSERT_TRUE(g.ok());
  std::vector<HostTensor> inputs = CaseInputs(*g, c.specs, 3);
  absl::StatusOr<GradientCheckResult> r = CheckGradients(*g, GradSpecFromMarks(*g), inputs);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->mismatch, "");
  // The gradient is the seed at the arg-max, zero elsewhere.
  const HostTensor& grad = r->joint_outputs[1];
  int nonzero = 0;
  for (int64_t i = 0; i < 3; ++i) nonzero += grad.GetDouble(i) != 0.0;
  EXPECT_EQ(nonzero, 1);
}

}  // namespace
}  // namespace rk::compiler::autodiff
