// ONNX export: a verified Graph to an ONNX model (opset 17, IR version 8)
// that ONNX's checker accepts, so a (minimized) repro can be filed against
// ONNX Runtime, TensorRT or any other ONNX consumer.
//
// Ops map to their ONNX counterparts; those ONNX lacks at opset 17 become
// short decompositions (rsqrt -> Reciprocal(Sqrt), gelu -> the erf formula,
// rms_norm -> ReduceMean of squares, ne -> Not(Equal), iota -> Range,
// floor-mod and floor-division on integers -> Mod/Div with sign fixes, on floats
// -> a - floor(a / b) * b and floor(a / b)).
// An op in a dtype ONNX does not take for it at opset 17 (comparisons on
// bool; Round, Sin, Cos, Conv and the pools on bf16; ConstantOfShape on bf16)
// is computed in a carrier dtype between casts (export_dtypes.h), so every
// model passes ONNX's type constraints, not only its checker.
// Constants become initializers; attribute-like inputs (shapes, axes, pads)
// become small int64 initializers. Value names are the graph's node names.
// Importing an exported model (importer.h) gives a graph with the same
// canonical hash as the one exported, for every graph the importer produces.
//
// Tested by compiler/onnx/exporter_test.cc (every op and dtype under ONNX's
// strict type inference) and compiler/onnx/ort_accepts_exports_test.sh (real
// ONNX Runtime).
#ifndef REPROKIT_COMPILER_ONNX_EXPORTER_H_
#define REPROKIT_COMPILER_ONNX_EXPORTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

inline constexpr int kExportOpset = 17;

// InvalidArgument naming the node when an op has no ONNX form.
absl::StatusOr<onnx::ModelProto> ExportModel(const Graph& graph);

// ONNX's test-data layout: one TensorProto file per tensor
// (`dir/input_0.pb`, ...), named after the graph's inputs or outputs.
absl::Status WriteTensorFiles(const Graph& graph, const std::vector<HostTensor>& tensors,
                              bool outputs, const std::string& dir);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_EXPORTER_H_
