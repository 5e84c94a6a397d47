#include "testing/op_samples_test_util.h"

#include "absl/strings/str_cat.h"

namespace rk::op_coverage {
namespace {

using compiler::Op;

// f32[2,3] -> f32[2,3] through `op`.
OpSample Unary(const std::string& op, bool positive = false) {
  OpSample s{op, absl::StrCat("graph @g(%x: f32[2,3]) {\n  %y = ", op,
                              "(%x) : f32[2,3]\n  return %y\n}")};
  if (positive) s.inputs = {compiler::RandomSpec::Distribution::kUniform, 0.5, 2.0};
  return s;
}

// `op` over f32[2,3] and a broadcast f32[3], giving `result`'s dtype.
OpSample Binary(const std::string& op, const std::string& result = "f32", bool positive = false) {
  OpSample s{op, absl::StrCat("graph @g(%a: f32[2,3], %b: f32[3]) {\n  %y = ", op,
                              "(%a, %b) : ", result, "[2,3]\n  return %y\n}")};
  if (positive) s.inputs = {compiler::RandomSpec::Distribution::kUniform, 0.5, 2.0};
  return s;
}

OpSample Logic(const std::string& op) {
  return {op, absl::StrCat("graph @g(%a: bool[2,3], %b: bool[3]) {\n  %y = ", op,
                           "(%a, %b) : bool[2,3]\n  return %y\n}")};
}

OpSample Reduce(const std::string& op) {
  return {op, absl::StrCat("graph @g(%x: f32[2,5]) {\n  %y = ", op,
                           "(%x) {axes=[1], keepdim=false} : f32[2]\n  return %y\n}")};
}

OpSample Layout(const std::string& op, const std::string& in, const std::string& attrs,
                const std::string& out) {
  return {op, absl::StrCat("graph @g(%x: ", in, ") {\n  %y = ", op, "(%x) {", attrs, "} : ", out,
                           "\n  return %y\n}")};
}

OpSample Softmax(const std::string& op) {
  return {op, absl::StrCat("graph @g(%x: f32[2,5]) {\n  %y = ", op,
                           "(%x) {axis=-1} : f32[2,5]\n  return %y\n}")};
}

// Why an op has no simplify_op rewrite: other reductions already shrink it.
constexpr char kNoSimplerSource[] =
    "no simpler form: a source has no operand to become; ddmin_nodes and cut_head remove it";
constexpr char kNoSimplerBinary[] =
    "no simpler form: bypass_node already forwards it to an operand of its type";
constexpr char kNoSimplerBool[] =
    "no simpler form: no cheaper op compares or combines bools; bypass_node forwards logic "
    "ops to a bool operand";
constexpr char kNoSimplerCast[] =
    "no simpler form: simplify_dtypes moves f16/bf16 to f32, bypass_node drops same-type casts";
constexpr char kNoSimplerReduce[] =
    "no simpler form: no cheaper op reduces; shrink_shapes makes the reduced dims small";
constexpr char kNoSimplerLayout[] =
    "no simpler form: index arithmetic only; shrink_shapes and bypass_node shrink around it";
constexpr char kNoSimplerGather[] =
    "no simpler form: gather only moves elements (no cheaper op selects by loaded indices); "
    "shrink_shapes shrinks its data and indices";
constexpr char kNoSimplerPad[] =
    "no simpler form: index arithmetic and a select; shrink_shapes shrinks its operand, "
    "probdd_nodes and cut_head remove it";

}  // namespace

std::string_view PieceName(Piece piece) {
  switch (piece) {
    case Piece::kShapeInference: return "shape inference";
    case Piece::kReference: return "reference interpreter (native and fp64)";
    case Piece::kReachesKernels: return "survives the graph pipeline";
    case Piece::kCpu: return "CPU lowering";
    case Piece::kGpu: return "GPU lowering (PTX)";
    case Piece::kGenerator: return "fuzz generator";
    case Piece::kMinifier: return "minifier simplification";
  }
  return "?";
}

std::vector<OpSample> OpSamples() {
  return {
      // Sources.
      {"input", "graph @g(%x: f32[2,3]) {\n  return %x\n}"},
      {"constant",
       "graph @g(%x: f32[2,3]) {\n  %c = constant() {value=dense<f32[3]>[0.5, -1.0, 2.0]} : "
       "f32[3]\n  %y = mul(%x, %c) : f32[2,3]\n  return %y\n}"},
      {"full",
       "graph @g(%x: f32[2,3]) {\n  %f = full() {dtype=f32, shape=[2,3], value=1.5} : f32[2,3]\n"
       "  %y = mul(%x, %f) : f32[2,3]\n  return %y\n}"},
      {"iota",
       "graph @g(%x: f32[2,3]) {\n  %i = iota() {axis=1, dtype=f32, shape=[2,3]} : f32[2,3]\n"
       "  %y = mul(%x, %i) : f32[2,3]\n  return %y\n}"},
      // Unary.
      Unary("neg"), Unary("abs"), Unary("exp"), Unary("log", true), Unary("sqrt", true),
      Unary("rsqrt", true), Unary("reciprocal", true), Unary("tanh"), Unary("sigmoid"),
      Unary("relu"), Unary("erf"), Unary("sin"), Unary("cos"), Unary("floor"), Unary("ceil"),
      Unary("round"),
      {"clip",
       "graph @g(%x: f32[2,3]) {\n  %y = clip(%x) {max=1.0, min=-0.5} : f32[2,3]\n"
       "  return %y\n}"},
      // Binary.
      Binary("add"), Binary("sub"), Binary("mul"), Binary("div", "f32", true),
      Binary("pow", "f32", true), Binary("maximum"), Binary("minimum"), Binary("mod"),
      Binary("floordiv"),
      // Compare.
      Binary("eq", "bool"), Binary("ne", "bool"), Binary("lt", "bool"), Binary("le", "bool"),
      Binary("gt", "bool"), Binary("ge", "bool"),
      // Logic.
      Logic("and"), Logic("or"),
      {"not", "graph @g(%a: bool[2,3]) {\n  %y = not(%a) : bool[2,3]\n  return %y\n}"},
      {"where",
       "graph @g(%c: bool[2,3], %a: f32[2,3], %b: f32[3]) {\n"
       "  %y = where(%c, %a, %b) : f32[2,3]\n  return %y\n}"},
      {"cast", "graph @g(%x: f32[2,3]) {\n  %y = cast(%x) {dtype=i32} : i32[2,3]\n  return %y\n}"},
      // Reductions.
      Reduce("reduce_sum"), Reduce("reduce_mean"), Reduce("reduce_max"), Reduce("reduce_min"),
      {"cumsum",
       "graph @g(%x: f32[2,5]) {\n  %y = cumsum(%x) {axis=-1, exclusive=true, reverse=true} : "
       "f32[2,5]\n  return %y\n}"},
      {"argmax",
       "graph @g(%x: f32[2,5]) {\n  %y = argmax(%x) {axis=1, keepdim=false} : i64[2]\n"
       "  return %y\n}"},
      // Layout.
      Layout("reshape", "f32[2,3]", "shape=[3,2]", "f32[3,2]"),
      Layout("transpose", "f32[2,3]", "perm=[1,0]", "f32[3,2]"),
      Layout("broadcast_to", "f32[3]", "shape=[2,3]", "f32[2,3]"),
      Layout("slice", "f32[4,6]", "limit=[3,6], start=[1,0], stride=[1,2]", "f32[2,3]"),
      {"concat",
       "graph @g(%a: f32[2,3], %b: f32[2,1]) {\n  %y = concat(%a, %b) {axis=1} : f32[2,4]\n"
       "  return %y\n}"},
      Layout("squeeze", "f32[2,1,3]", "axes=[1]", "f32[2,3]"),
      Layout("unsqueeze", "f32[2,3]", "axes=[1]", "f32[2,1,3]"),
      Layout("pad", "f32[2,3]", "pads=[1,0,0,2], value=-1.5", "f32[3,5]"),
      // Matmul: batched, both operands inputs (what simplify_op shrinks).
      {"matmul",
       "graph @g(%a: f32[2,3,4], %b: f32[2,4,5]) {\n  %y = matmul(%a, %b) : f32[2,3,5]\n"
       "  return %y\n}"},
      // Gather: indices drawn from [-2, 2] on an axis of 2, so negative and
      // out-of-range ones both occur.
      {"gather",
       "graph @g(%x: f32[3,2], %i: i32[2,2]) {\n  %y = gather(%x, %i) {axis=1} : f32[3,2,2]\n"
       "  return %y\n}"},
      // Windows: padded and strided; conv2d grouped, both operands inputs
      // (what simplify_op shrinks).
      {"conv2d",
       "graph @g(%x: f32[1,4,5,5], %w: f32[4,2,3,3]) {\n"
       "  %y = conv2d(%x, %w) {dilations=[1,1], groups=2, pads=[1,1,1,1], strides=[2,2]} : "
       "f32[1,4,3,3]\n  return %y\n}"},
      Layout("max_pool2d", "f32[1,2,5,5]",
             "dilations=[1,1], kernel=[3,3], pads=[1,1,1,1], strides=[2,2]", "f32[1,2,3,3]"),
      Layout("avg_pool2d", "f32[1,2,5,5]",
             "count_include_pad=false, kernel=[3,3], pads=[1,1,1,1], strides=[2,2]",
             "f32[1,2,3,3]"),
      // Composites.
      Unary("gelu"), Softmax("softmax"), Softmax("log_softmax"),
      {"layer_norm",
       "graph @g(%x: f32[2,5], %w: f32[5], %b: f32[5]) {\n"
       "  %y = layer_norm(%x, %w, %b) {axis=1, eps=1e-5} : f32[2,5]\n  return %y\n}"},
      {"rms_norm",
       "graph @g(%x: f32[2,5], %w: f32[5]) {\n"
       "  %y = rms_norm(%x, %w) {axis=-1, eps=1e-5} : f32[2,5]\n  return %y\n}"},
  };
}

std::vector<Exemption> OpExemptions() {
  std::vector<Exemption> e = {
      {Op::kInput, Piece::kCpu, "an input is a buffer the caller passes: no kernel computes it"},
      {Op::kInput, Piece::kGpu, "an input is a buffer the caller passes: no kernel computes it"},
      {Op::kInput, Piece::kMinifier,
       "no simpler form: inputs_to_constants, shrink_shapes and remove_unused_inputs act on "
       "inputs"},
  };
  for (Op op : {Op::kGelu, Op::kSoftmax, Op::kLogSoftmax, Op::kLayerNorm, Op::kRmsNorm}) {
    e.push_back({op, Piece::kReachesKernels,
                 "a composite: decompose lowers it to primitives before fusion"});
  }
  for (Op op : {Op::kConstant, Op::kFull, Op::kIota}) {
    e.push_back({op, Piece::kMinifier, kNoSimplerSource});
  }
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kPow, Op::kMaximum, Op::kMinimum,
                Op::kMod, Op::kFloorDiv, Op::kWhere}) {
    e.push_back({op, Piece::kMinifier, kNoSimplerBinary});
  }
  for (Op op : {Op::kEq, Op::kNe, Op::kLt, Op::kLe, Op::kGt, Op::kGe, Op::kAnd, Op::kOr,
                Op::kNot}) {
    e.push_back({op, Piece::kMinifier, kNoSimplerBool});
  }
  e.push_back({Op::kCast, Piece::kMinifier, kNoSimplerCast});
  for (Op op : {Op::kReduceSum, Op::kReduceMean, Op::kReduceMax, Op::kReduceMin, Op::kArgmax}) {
    e.push_back({op, Piece::kMinifier, kNoSimplerReduce});
  }
  for (Op op : {Op::kReshape, Op::kTranspose, Op::kBroadcastTo, Op::kSlice, Op::kConcat,
                Op::kSqueeze, Op::kUnsqueeze}) {
    e.push_back({op, Piece::kMinifier, kNoSimplerLayout});
  }
  e.push_back({Op::kGather, Piece::kMinifier, kNoSimplerGather});
  e.push_back({Op::kPad, Piece::kMinifier, kNoSimplerPad});
  return e;
}

}  // namespace rk::op_coverage
