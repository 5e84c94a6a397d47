#include "compiler/passes/random_graph_for_test.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "compiler/ir/builder.h"

namespace rk::compiler {
namespace {

constexpr Op kFloatUnary[] = {Op::kNeg,  Op::kAbs,     Op::kExp,  Op::kLog, Op::kSqrt,
                              Op::kRsqrt, Op::kReciprocal, Op::kTanh, Op::kSigmoid,
                              Op::kRelu, Op::kErf,     Op::kSin,  Op::kCos};
constexpr Op kBinary[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMaximum, Op::kMinimum};
constexpr Op kReduce[] = {Op::kReduceSum, Op::kReduceMean, Op::kReduceMax, Op::kReduceMin};
constexpr double kSpecialValues[] = {1.0, 0.0, -0.0, 2.0, 0.5, -1.0};

class Generator {
 public:
  Generator(uint64_t seed, const RandomGraphOptions& options)
      : rng_(seed), options_(options), builder_("random") {}

  Graph Generate();

 private:
  template <typename T, size_t N>
  T Pick(const T (&items)[N]) {
    return items[Uniform(N)];
  }
  size_t Uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  NodeId Any() { return pool_[Uniform(pool_.size())]; }
  // By value: adding nodes may move the builder's storage.
  TensorType TypeOf(NodeId id) { return builder_.type(id); }
  void Keep(absl::StatusOr<NodeId> id) {
    if (id.ok()) pool_.push_back(*id);
  }

  void AddInputs();
  void Step();
  void Constant(NodeId x);
  void Layout(NodeId x);
  void Composite(NodeId x);
  void Identities(NodeId x);

  std::mt19937_64 rng_;
  RandomGraphOptions options_;
  GraphBuilder builder_;
  DType dtype_ = DType::kF32;
  std::vector<NodeId> pool_;
};

void Generator::AddInputs() {
  const DType dtypes[] = {DType::kF32, DType::kF32, DType::kF32, DType::kF16, DType::kI32};
  dtype_ = Pick(dtypes);
  const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {3}, {2, 1, 3}, {4}, {2, 3, 4}, {}};
  const int count = 1 + static_cast<int>(Uniform(3));
  for (int i = 0; i < count; ++i) {
    const std::vector<int64_t>& dims = shapes[Uniform(shapes.size())];
    pool_.push_back(builder_.Input("in" + std::to_string(i), TensorType(dtype_, Shape(dims))));
  }
}

void Generator::Constant(NodeId x) {
  const TensorType type = TypeOf(x);
  const bool scalar = Uniform(2) == 0;
  absl::StatusOr<NodeId> c =
      builder_.Full(scalar ? TensorType(type.dtype, Shape()) : type, Pick(kSpecialValues));
  if (!c.ok()) return;
  if (Uniform(3) == 0 && type.shape.rank() > 0) {
    Attributes attrs{{"axis", int64_t{0}}, {"dtype", type.dtype},
                     {"shape", type.shape.dims()}};
    absl::StatusOr<NodeId> iota = builder_.Add(Op::kIota, {}, attrs);
    if (iota.ok()) c = builder_.Binary(Pick(kBinary), *c, *iota);
    if (!c.ok()) return;
  }
  const Op op = Pick(kBinary);
  Keep(Uniform(2) == 0 ? builder_.Binary(op, x, *c) : builder_.Binary(op, *c, x));
}

void Generator::Layout(NodeId x) {
  const TensorType type = TypeOf(x);
  const int rank = type.shape.rank();
  switch (Uniform(4)) {
    case 0: {
      const Attributes axes{{"axes", std::vector<int64_t>{0}}};
      absl::StatusOr<NodeId> u = builder_.Add(Op::kUnsqueeze, {x}, axes);
      if (u.ok()) Keep(builder_.Add(Op::kSqueeze, {*u}, axes));
      return;
    }
    case 1: {
      absl::StatusOr<NodeId> flat = builder_.Reshape(x, {type.num_elements()});
      if (flat.ok()) Keep(builder_.Reshape(*flat, type.shape.dims()));
      return;
    }
    case 2: {
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
      absl::StatusOr<NodeId> t = builder_.Add(Op::kTranspose, {x}, {{"perm", perm}});
      if (!t.ok()) return;
      std::shuffle(perm.begin(), perm.end(), rng_);
      Keep(builder_.Add(Op::kTranspose, {*t}, {{"perm", perm}}));
      return;
    }
    default: {
      std::vector<int64_t> dims = type.shape.dims();
      if (Uniform(2) == 0) dims.insert(dims.begin(), 2);
      Keep(builder_.Add(Op::kBroadcastTo, {x}, {{"shape", dims}}));
      return;
    }
  }
}

void Generator::Composite(NodeId x) {
  const TensorType type = TypeOf(x);
  const int rank = type.shape.rank();
  if (rank == 0) return;
  const int64_t last = rank - 1;
  switch (Uniform(4)) {
    case 0:
      Keep(builder_.Add(Uniform(2) ? Op::kSoftmax : Op::kLogSoftmax, {x},
                        {{"axis", static_cast<int64_t>(Uniform(rank))}}));
      return;
    case 1:
      Keep(builder_.Unary(Op::kGelu, x));
      return;
    default: {
      absl::StatusOr<NodeId> gamma =
          builder_.Full(TensorType(type.dtype, Shape({type.shape.dim(last)})), 1.5);
      if (!gamma.ok()) return;
      Attributes attrs{{"axis", last}, {"eps", 1e-5}};
      if (Uniform(2)) {
        Keep(builder_.Add(Op::kRmsNorm, {x, *gamma}, attrs));
      } else {
        Keep(builder_.Add(Op::kLayerNorm, {x, *gamma, *gamma}, attrs));
      }
      return;
    }
  }
}

void Generator::Identities(NodeId x) {
  const Op pairs[][2] = {{Op::kNeg, Op::kNeg}, {Op::kAbs, Op::kAbs}, {Op::kNeg, Op::kAbs},
                         {Op::kRelu, Op::kRelu}, {Op::kLog, Op::kExp}, {Op::kExp, Op::kLog}};
  switch (Uniform(3)) {
    case 0: {
      const auto& pair = pairs[Uniform(std::size(pairs))];
      absl::StatusOr<NodeId> inner = builder_.Unary(pair[0], x);
      if (inner.ok()) Keep(builder_.Unary(pair[1], *inner));
      return;
    }
    case 1: {
      const DType dtype = TypeOf(x).dtype;
      const DType wide = IsFloat(dtype) ? DType::kF64 : DType::kI64;
      absl::StatusOr<NodeId> up = builder_.Cast(x, wide);
      if (up.ok()) Keep(builder_.Cast(*up, dtype));
      return;
    }
    default:
      Keep(Uniform(2) ? builder_.Binary(Op::kSub, x, x) : builder_.Binary(Op::kMul, x, x));
      return;
  }
}

void Generator::Step() {
  const NodeId x = Any();
  switch (Uniform(options_.composites ? 9 : 8)) {
    case 0: Keep(builder_.Unary(Pick(kFloatUnary), x)); return;
    case 1: Keep(builder_.Binary(Pick(kBinary), x, Any())); return;
    case 2: Constant(x); return;
    case 3: Identities(x); return;
    case 4: {
      const Node node = builder_.graph().node(Any());
      if (node.op != Op::kInput) Keep(builder_.Add(node.op, node.operands, node.attrs));
      return;
    }
    case 5: Layout(x); return;
    case 6: {
      const int rank = TypeOf(x).shape.rank();
      if (rank == 0) return;
      Keep(builder_.Reduce(Pick(kReduce), x, {static_cast<int64_t>(Uniform(rank))},
                           Uniform(2) == 0));
      return;
    }
    case 7: Keep(builder_.Binary(Op::kMul, x, x)); return;
    default: Composite(x); return;
  }
}

Graph Generator::Generate() {
  AddInputs();
  const size_t num_inputs = pool_.size();
  for (int i = 0; i < options_.steps; ++i) Step();
  (void)builder_.Output(pool_.back());
  if (pool_.size() > num_inputs + 2 && Uniform(2) == 0) {
    (void)builder_.Output(pool_[num_inputs + Uniform(pool_.size() - num_inputs)]);
  }
  absl::StatusOr<Graph> graph = builder_.Build();
  return graph.ok() ? *std::move(graph) : Graph();
}

}  // namespace

Graph RandomGraphForPasses(uint64_t seed, const RandomGraphOptions& options) {
  return Generator(seed, options).Generate();
}

}  // namespace rk::compiler
