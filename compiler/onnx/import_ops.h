// The op converters of the ONNX importer, by family; the table that maps op
// types to them is in import_ops.cc. Internal to compiler/onnx.
//
// Tested through compiler/onnx/importer_test.cc and
// //testing/onnx:conformance_test.
#ifndef REPROKIT_COMPILER_ONNX_IMPORT_OPS_H_
#define REPROKIT_COMPILER_ONNX_IMPORT_OPS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"
#include "compiler/onnx/import_context.h"

namespace rk::compiler::onnx_io {

// An op of this build's table by text name; InvalidArgument naming the ONNX
// node when the build has no such op.
absl::StatusOr<Op> OpNamed(NodeContext& ctx, const char* name);

// The axes a Reduce* node reduces, normalized, sorted and unique, for an
// input of `rank`: from the `axes` attribute before `input_opset` (13 for
// ReduceSum, 18 for the others), from input 1 from it on; no axes means all
// of them, or none (nullopt: the node is the identity) with
// noop_with_empty_axes=1, an attribute of the input form only. An `axes`
// attribute in the input form, or an axes input before it, is refused.
absl::StatusOr<std::optional<std::vector<int64_t>>> ReduceAxes(NodeContext& ctx, int rank,
                                                               int64_t input_opset);

// import_elementwise.cc
absl::Status ConvertUnary(NodeContext& ctx);     // Relu, Exp, Floor, ... (one reprokit op)
absl::Status ConvertBinary(NodeContext& ctx);    // Add, Less, And, ...
absl::Status ConvertVariadic(NodeContext& ctx);  // Max, Min, Sum, Mean
absl::Status ConvertPow(NodeContext& ctx);
absl::Status ConvertMod(NodeContext& ctx);
absl::Status ConvertXor(NodeContext& ctx);
absl::Status ConvertWhere(NodeContext& ctx);
absl::Status ConvertCast(NodeContext& ctx);
absl::Status ConvertCastLike(NodeContext& ctx);
absl::Status ConvertClip(NodeContext& ctx);
absl::Status ConvertIsNaN(NodeContext& ctx);
absl::Status ConvertActivation(NodeContext& ctx);  // LeakyRelu, HardSigmoid, Elu, ...
absl::Status ConvertIdentity(NodeContext& ctx);    // Identity, Dropout
absl::Status ConvertGelu(NodeContext& ctx);        // opset 20: none (erf) or tanh

// import_tensor.cc (layout, shapes and constants)
absl::Status ConvertConstant(NodeContext& ctx);
absl::Status ConvertShape(NodeContext& ctx);
absl::Status ConvertSize(NodeContext& ctx);
absl::Status ConvertConstantOfShape(NodeContext& ctx);
absl::Status ConvertRange(NodeContext& ctx);
absl::Status ConvertReshape(NodeContext& ctx);
absl::Status ConvertFlatten(NodeContext& ctx);
absl::Status ConvertTranspose(NodeContext& ctx);
absl::Status ConvertSqueeze(NodeContext& ctx);
absl::Status ConvertUnsqueeze(NodeContext& ctx);
absl::Status ConvertConcat(NodeContext& ctx);
absl::Status ConvertSlice(NodeContext& ctx);
absl::Status ConvertSplit(NodeContext& ctx);
absl::Status ConvertExpand(NodeContext& ctx);
absl::Status ConvertTile(NodeContext& ctx);
absl::Status ConvertGather(NodeContext& ctx);

// Kernel geometry of a Conv or pool over the two spatial dims of `x` (rank 4),
// with auto_pad resolved into explicit pads [top, left, bottom, right]
// (import_nn.cc).
struct Window {
  std::vector<int64_t> kernel, strides, pads, dilations;
};
absl::StatusOr<Window> ReadWindow(NodeContext& ctx, const Shape& x, std::vector<int64_t> kernel);

// import_nn.cc (reductions, matmul, normalization, convolution, Pad, CumSum)
absl::Status ConvertReduce(NodeContext& ctx);  // ReduceSum/Mean/Max/Min
absl::Status ConvertArgMax(NodeContext& ctx);  // ArgMax, ArgMin
absl::Status ConvertMatMul(NodeContext& ctx);
absl::Status ConvertGemm(NodeContext& ctx);
absl::Status ConvertSoftmax(NodeContext& ctx);  // Softmax, LogSoftmax
absl::Status ConvertLayerNorm(NodeContext& ctx);
absl::Status ConvertBatchNorm(NodeContext& ctx);
absl::Status ConvertConv(NodeContext& ctx);
absl::Status ConvertPad(NodeContext& ctx);
absl::Status ConvertCumSum(NodeContext& ctx);

// import_composed.cc (several reprokit ops each)
absl::Status ConvertComposed(NodeContext& ctx);  // Tan, Sinh, Cosh, Celu, Shrink, Mish, IsInf
absl::Status ConvertNormReduce(NodeContext& ctx);    // ReduceL1/L2/SumSquare/LogSum/LogSumExp
absl::Status ConvertInstanceNorm(NodeContext& ctx);
absl::Status ConvertGroupNorm(NodeContext& ctx);  // opset 18: per group, 21: per channel
absl::Status ConvertSpaceDepth(NodeContext& ctx);    // DepthToSpace, SpaceToDepth
absl::Status ConvertTrilu(NodeContext& ctx);

// import_indexing.cc (a gather over the flattened data)
absl::Status ConvertGatherElements(NodeContext& ctx);
absl::Status ConvertGatherND(NodeContext& ctx);
absl::Status ConvertScatterND(NodeContext& ctx);        // indices known at import
absl::Status ConvertScatterElements(NodeContext& ctx);  // indices known at import

// import_einsum.cc (transposes, reshapes, reduce_sum and batched matmuls)
absl::Status ConvertEinsum(NodeContext& ctx);

// import_control.cc
absl::Status ConvertIf(NodeContext& ctx);  // condition known at import

// import_resize.cc (gathers along each resized axis, weighted taps)
absl::Status ConvertResize(NodeContext& ctx);  // Resize, Upsample

// import_conv_transpose.cc (conv2d over the zero-stuffed input)
absl::Status ConvertConvTranspose(NodeContext& ctx);

// import_pool.cc (2-D pools; global pools as reductions)
absl::Status ConvertPool(NodeContext& ctx);        // MaxPool, AveragePool
absl::Status ConvertGlobalPool(NodeContext& ctx);  // GlobalAveragePool, GlobalMaxPool

// import_pool_nd.cc: MaxPool/AveragePool over 1 or 3 spatial dims
// (ConvertPool hands them over)
absl::Status ConvertPoolNd(NodeContext& ctx);

// import_topk.cc (repeated argmax over the positions not yet taken)
absl::Status ConvertTopK(NodeContext& ctx);

// import_conv3d.cc: Conv over 3 spatial dims (ConvertConv hands it over)
absl::Status ConvertConv3d(NodeContext& ctx);

// import_pool_ceil.cc: widens `pads` ([begins..., ends...] over the spatial
// dims of `x`) so that floor-mode windows give ONNX's ceil_mode=1 output;
// refused, naming the node, when `counts_padding` (AveragePool's
// count_include_pad) would count the added padding.
absl::Status ApplyCeilMode(NodeContext& ctx, const Shape& x, absl::Span<const int64_t> kernel,
                           absl::Span<const int64_t> strides,
                           absl::Span<const int64_t> dilations, bool counts_padding,
                           std::vector<int64_t>& pads);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_IMPORT_OPS_H_
