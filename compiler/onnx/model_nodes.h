// The nodes of a model's main graph as the importer converts them:
//
// - a node that calls one of the model's local functions (model.functions,
//   e.g. what exporters write for a module or a decomposition: matched by
//   domain, name and, IR 10, overload) is replaced by the function's body,
//   recursively: formal inputs and outputs become the caller's values, every
//   other value and node name gets the prefix "<caller>/" so it is unique,
//   attributes that refer to the caller's (ref_attr_name) take the caller's
//   value or the function's default (IR 9's attribute_proto), or are left
//   out; names inside subgraph attributes are renamed the same way;
// - nodes are in an order where every value is defined before its use (the
//   model's order when it is one; ONNX Runtime accepts models whose nodes
//   are not sorted, so reprokit does too).
//
// A function body that imports the default domain at another opset than the
// model is refused (the importer converts at one opset), and so is a call
// chain deeper than 64 (a function calling itself).
//
// Tested by compiler/onnx/model_nodes_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_MODEL_NODES_H_
#define REPROKIT_COMPILER_ONNX_MODEL_NODES_H_

#include <deque>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

struct ModelNodes {
  // Into the model's graph, or into `inlined`.
  std::vector<const onnx::NodeProto*> nodes;
  // The nodes made from function bodies (a deque: pointers stay valid).
  std::deque<onnx::NodeProto> inlined;
  int functions_inlined = 0;  // calls replaced
};

absl::StatusOr<ModelNodes> ModelNodesToConvert(const onnx::ModelProto& model);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_MODEL_NODES_H_
