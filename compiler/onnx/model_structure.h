// The checks reprokit makes itself on a model that ONNX's checker (Debian's
// ONNX 1.12: IR up to 8, ai.onnx opsets up to 17) cannot judge: newer IR
// versions and opsets, whose op schemas that checker does not know. Only
// what every ONNX runtime requires of a graph, so a model ONNX Runtime
// accepts passes:
//
// - every graph input, output, initializer and node output has a name, and
//   no value is defined twice (static single assignment);
// - every node input is defined somewhere: a graph input, an initializer or
//   a node output (node order is not checked: the importer sorts);
// - every graph output is defined;
// - every node's domain has an opset_import (or is a local function's);
// - every attribute has a name and a type, and only function bodies refer
//   to their caller's attributes (ref_attr_name);
// - graph inputs and outputs are typed (a tensor's element type is set).
//
// Op semantics (attributes and inputs of each op type, shapes) are checked
// by the converters as they read them (import_context.h), and the importer
// compares every output's declared static type with the one it computed.
//
// Tested by compiler/onnx/checker_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_MODEL_STRUCTURE_H_
#define REPROKIT_COMPILER_ONNX_MODEL_STRUCTURE_H_

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

// InvalidArgument "malformed model: <why>" naming the node or value.
absl::Status CheckModelStructure(const onnx::ModelProto& model);

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_MODEL_STRUCTURE_H_
