// The table of ONNX op types the importer converts (default domain), each
// with the opsets it implements (import_context.h): from the op's first
// version when that is past opset 1, and up to kNewestOpset unless noted.
// Checked against ONNX's operator changelog for opsets 18 to 21, the changes
// to ops of this table and where they are handled:
//   18: Reduce{Max,Min,Mean,L1,L2,LogSum,LogSumExp,SumSquare}: axes input and
//       noop_with_empty_axes (ReduceAxes); Pad: axes input; Split:
//       num_outputs (ConvertSplit); ScatterND/ScatterElements: reduction
//       max and min; new ops Mish, GroupNormalization (ConvertGroupNorm)
//   19: AveragePool: dilations; Cast/CastLike: saturate (float8 only); Pad:
//       wrap mode; Equal, Identity, Reshape, Shape, Size, Constant: types
//   20: Gelu (new); ReduceMax/ReduceMin: bool; IsInf/IsNaN,
//       ConstantOfShape: types
//   21: GroupNormalization: scale and bias per channel, stash_type;
//       Cast, CastLike, Constant, ConstantOfShape, Flatten, Identity, Pad,
//       Reshape, Shape, Size, Squeeze, Transpose, Unsqueeze: int4/uint4 types
// Type-only changes add types reprokit does not have (the element type
// check refuses them by name), so those converters need no version switch.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

const std::map<std::string, OpConverter>& Table() {
  static const auto* table = new std::map<std::string, OpConverter>{
      // Elementwise.
      {"Abs", &ConvertUnary}, {"Ceil", &ConvertUnary}, {"Cos", &ConvertUnary},
      {"Erf", &ConvertUnary}, {"Exp", &ConvertUnary}, {"Floor", &ConvertUnary},
      {"Log", &ConvertUnary}, {"Neg", &ConvertUnary}, {"Not", &ConvertUnary},
      {"Reciprocal", &ConvertUnary}, {"Relu", &ConvertUnary}, {"Round", &ConvertUnary},
      {"Sigmoid", &ConvertUnary}, {"Sin", &ConvertUnary}, {"Sqrt", &ConvertUnary},
      {"Tanh", &ConvertUnary},
      {"Add", &ConvertBinary}, {"Sub", &ConvertBinary}, {"Mul", &ConvertBinary},
      {"Div", &ConvertBinary}, {"Equal", &ConvertBinary}, {"Less", &ConvertBinary},
      {"LessOrEqual", &ConvertBinary}, {"Greater", &ConvertBinary},
      {"GreaterOrEqual", &ConvertBinary}, {"And", &ConvertBinary}, {"Or", &ConvertBinary},
      {"Max", &ConvertVariadic}, {"Min", &ConvertVariadic}, {"Sum", &ConvertVariadic},
      {"Mean", &ConvertVariadic},
      {"Pow", &ConvertPow}, {"Mod", &ConvertMod}, {"Xor", &ConvertXor},
      {"Where", &ConvertWhere}, {"Cast", &ConvertCast}, {"CastLike", &ConvertCastLike},
      {"Clip", &ConvertClip}, {"IsNaN", &ConvertIsNaN},
      {"Elu", &ConvertActivation}, {"HardSigmoid", &ConvertActivation},
      {"HardSwish", &ConvertActivation}, {"LeakyRelu", &ConvertActivation},
      {"PRelu", &ConvertActivation}, {"Selu", &ConvertActivation},
      {"Softplus", &ConvertActivation}, {"Softsign", &ConvertActivation},
      {"ThresholdedRelu", &ConvertActivation},
      {"Identity", &ConvertIdentity}, {"Dropout", &ConvertIdentity},
      {"Gelu", {&ConvertGelu, 20}},
      // Tensors, shapes, constants.
      {"Constant", &ConvertConstant}, {"Shape", &ConvertShape}, {"Size", &ConvertSize},
      {"ConstantOfShape", &ConvertConstantOfShape}, {"Range", &ConvertRange},
      {"Reshape", &ConvertReshape}, {"Flatten", &ConvertFlatten},
      {"Transpose", &ConvertTranspose}, {"Squeeze", &ConvertSqueeze},
      {"Unsqueeze", &ConvertUnsqueeze}, {"Concat", &ConvertConcat}, {"Slice", &ConvertSlice},
      {"Split", &ConvertSplit}, {"Expand", &ConvertExpand}, {"Tile", &ConvertTile},
      {"Gather", &ConvertGather},
      // Reductions, matmul, normalization, convolution.
      {"ReduceSum", &ConvertReduce}, {"ReduceMean", &ConvertReduce},
      {"ReduceMax", &ConvertReduce}, {"ReduceMin", &ConvertReduce},
      {"ArgMax", &ConvertArgMax}, {"ArgMin", &ConvertArgMax},
      {"MatMul", &ConvertMatMul}, {"Gemm", &ConvertGemm},
      {"Softmax", &ConvertSoftmax}, {"LogSoftmax", &ConvertSoftmax},
      {"LayerNormalization", {&ConvertLayerNorm, 17}},
      {"BatchNormalization", &ConvertBatchNorm},
      {"Conv", &ConvertConv}, {"MaxPool", &ConvertPool}, {"AveragePool", &ConvertPool},
      {"GlobalAveragePool", &ConvertGlobalPool}, {"GlobalMaxPool", &ConvertGlobalPool},
      {"Pad", &ConvertPad}, {"CumSum", &ConvertCumSum},
      // Composed of several reprokit ops.
      {"Tan", &ConvertComposed}, {"Sinh", &ConvertComposed}, {"Cosh", &ConvertComposed},
      {"Celu", &ConvertComposed}, {"Shrink", &ConvertComposed}, {"IsInf", &ConvertComposed},
      {"Mish", {&ConvertComposed, 18}},
      {"ReduceL1", &ConvertNormReduce}, {"ReduceL2", &ConvertNormReduce},
      {"ReduceSumSquare", &ConvertNormReduce}, {"ReduceLogSum", &ConvertNormReduce},
      {"ReduceLogSumExp", &ConvertNormReduce},
      {"InstanceNormalization", &ConvertInstanceNorm},
      {"GroupNormalization", {&ConvertGroupNorm, 18}},
      {"DepthToSpace", &ConvertSpaceDepth}, {"SpaceToDepth", &ConvertSpaceDepth},
      {"Trilu", &ConvertTrilu},
      // Indexing through a flat gather.
      {"GatherElements", {&ConvertGatherElements, 11}}, {"GatherND", {&ConvertGatherND, 11}},
      {"ScatterND", {&ConvertScatterND, 11}},
      {"ScatterElements", {&ConvertScatterElements, 11}},
      {"Einsum", {&ConvertEinsum, 12}},
      {"If", &ConvertIf}, {"ConvTranspose", &ConvertConvTranspose}, {"TopK", &ConvertTopK},
      {"Resize", {&ConvertResize, 10}}, {"Upsample", {&ConvertResize, 7, 9}},
  };
  return *table;
}

}  // namespace

const OpConverter* FindConverter(const std::string& op_type) {
  auto it = Table().find(op_type);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string> ConverterOpTypes() {
  std::vector<std::string> out;
  for (const auto& [name, converter] : Table()) out.push_back(name);
  return out;
}

absl::StatusOr<Op> OpNamed(NodeContext& ctx, const char* name) {
  std::optional<Op> op = ParseOp(name);
  if (!op.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.node().op_type(), " node '",
                                                 ctx.node().name(), "': this build has no '",
                                                 name, "' op"));
  }
  return *op;
}

}  // namespace rk::compiler::onnx_io
