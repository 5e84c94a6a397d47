// The table of ONNX op types the importer converts (default domain).
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
      {"LayerNormalization", &ConvertLayerNorm},
      {"BatchNormalization", &ConvertBatchNorm},
      {"Conv", &ConvertConv}, {"MaxPool", &ConvertPool}, {"AveragePool", &ConvertPool},
      {"GlobalAveragePool", &ConvertGlobalPool}, {"GlobalMaxPool", &ConvertGlobalPool},
      {"Pad", &ConvertPad}, {"CumSum", &ConvertCumSum},
      // Composed of several reprokit ops.
      {"Tan", &ConvertComposed}, {"Sinh", &ConvertComposed}, {"Cosh", &ConvertComposed},
      {"Celu", &ConvertComposed}, {"Shrink", &ConvertComposed}, {"IsInf", &ConvertComposed},
      {"ReduceL1", &ConvertNormReduce}, {"ReduceL2", &ConvertNormReduce},
      {"ReduceSumSquare", &ConvertNormReduce}, {"ReduceLogSum", &ConvertNormReduce},
      {"ReduceLogSumExp", &ConvertNormReduce},
      {"InstanceNormalization", &ConvertInstanceNorm},
      {"DepthToSpace", &ConvertSpaceDepth}, {"SpaceToDepth", &ConvertSpaceDepth},
      {"Trilu", &ConvertTrilu},
      // Indexing through a flat gather.
      {"GatherElements", &ConvertGatherElements}, {"GatherND", &ConvertGatherND},
      {"ScatterND", &ConvertScatterND}, {"ScatterElements", &ConvertScatterElements},
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
