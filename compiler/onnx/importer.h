// ONNX import: a ModelProto (ONNX's protobuf, parsed by Debian's libonnx) to a
// verified reprokit Graph.
//
// - Graph inputs that are not initializers become graph inputs, with static
//   shapes: a symbolic or unknown dim must be bound by
//   ImportOptions::input_shapes (InvalidArgument naming the input and dim
//   otherwise). Initializers become `constant` nodes (a bundle stores the
//   large ones in its content store, not as text).
// - Every ONNX node becomes one or more graph nodes named after it (its name,
//   or its first output's, made of [A-Za-z0-9_.]): the node that carries its
//   result gets that name, helper nodes get "<name>.1", "<name>.2", ...;
//   `ImportedModel::origins` maps each back to the ONNX name and op type.
// - Integer and bool computations on constants (shape arithmetic: Shape,
//   Size, Gather on shapes, Concat, Range, ConstantOfShape, ...) are folded
//   at import with the reference interpreter, so inputs that must be
//   constants (Reshape's shape, Slice's starts, ...) are.
// - Ops without a reprokit op are lowered (Gemm, BatchNormalization,
//   Flatten, HardSigmoid, ...); docs/ONNX.md lists every supported op type.
//   Unsupported input is one InvalidArgument listing every unsupported op
//   type with the opset, count and first node name; an op of a newer opset
//   than the importer knows (import_context.h: each converter's opset
//   range, up to kNewestOpset) is listed with the newest it knows.
// - Local functions are inlined and nodes sorted first (model_nodes.h).
// - A graph output declared with a static shape, and a value whose
//   value_info is static, must come out with that type (InvalidArgument
//   naming the node otherwise): exporters write these from their own shape
//   inference, so a difference is a conversion gone wrong.
//
// The namespace is onnx_io, not onnx, because ONNX's own classes live in
// namespace ::onnx.
//
// Tested by compiler/onnx/importer_test.cc and, against ONNX's own node
// tests, //testing/onnx:conformance_test.
#ifndef REPROKIT_COMPILER_ONNX_IMPORTER_H_
#define REPROKIT_COMPILER_ONNX_IMPORTER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

struct ImportOptions {
  // ONNX input name -> dims; binds symbolic dims (and may override static ones).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // External data files are resolved relative to this directory.
  std::string model_dir = ".";
};

// Where a graph node came from.
struct NodeOrigin {
  std::string node;       // the graph node's name
  std::string onnx_name;  // the ONNX node's name (may be empty in the model)
  std::string op_type;    // "Conv", "MatMul", ...
};

struct ImportedModel {
  Graph graph;
  int64_t opset = 0;
  std::string producer;  // "pytorch 2.1", or empty
  std::vector<NodeOrigin> origins;
  int64_t initializer_bytes = 0;
  int functions_inlined = 0;  // calls of local functions replaced by their bodies
};

absl::StatusOr<ImportedModel> ImportModel(const onnx::ModelProto& model,
                                          const ImportOptions& options = {});
// Reads, checks (model_file.h) and imports; external data is resolved
// relative to the file's directory.
absl::StatusOr<ImportedModel> ImportModelFile(const std::string& path, ImportOptions options = {});

// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> SupportedOpTypes();

// A valid node name for an ONNX name: other characters become '_', leading
// '_' are dropped, and a name of digits only (or none) gets an 'n' prefix.
std::string SanitizeName(const std::string& onnx_name);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_IMPORTER_H_
