// What an op converter sees while the importer (importer.h) converts one ONNX
// node: its inputs as graph nodes or folded constants, its attributes, and
// Emit, which adds graph nodes (folding integer computations on constants).
// Internal to compiler/onnx.
//
// Tested through compiler/onnx/importer_test.cc.
#ifndef REPROKIT_COMPILER_ONNX_IMPORT_CONTEXT_H_
#define REPROKIT_COMPILER_ONNX_IMPORT_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace rk::compiler::onnx_io {

class NodeContext {
 public:
  virtual ~NodeContext() = default;

  virtual const onnx::NodeProto& node() const = 0;
  virtual int64_t opset() const = 0;
  // Where external data of tensor attributes is resolved.
  virtual const std::string& model_dir() const = 0;

  // Inputs: ONNX marks an omitted optional input with an empty name.
  int num_inputs() const { return node().input_size(); }
  bool HasInput(int i) const { return i < num_inputs() && !node().input(i).empty(); }
  virtual absl::StatusOr<NodeId> Input(int i) = 0;
  // The input's value, which must be known at import (an initializer, a
  // Constant, or folded); InvalidArgument naming the input otherwise.
  virtual absl::StatusOr<HostTensor> ConstantInput(int i) = 0;
  // The input's values as int64 (any integer dtype), e.g. a shape.
  absl::StatusOr<std::vector<int64_t>> ConstantInts(int i);

  // Adds a node; integer and bool results of constant operands are folded.
  virtual absl::StatusOr<NodeId> Emit(Op op, absl::Span<const NodeId> operands,
                                      Attributes attrs = {}) = 0;
  virtual absl::StatusOr<NodeId> EmitConstant(HostTensor value) = 0;
  // A scalar `full` of `dtype` (broadcasts against anything), its value
  // rounded to `dtype`.
  absl::StatusOr<NodeId> Scalar(DType dtype, double value);
  virtual const TensorType& type(NodeId id) const = 0;
  // The value of a constant node (or nullopt).
  virtual std::optional<HostTensor> ValueOf(NodeId id) const = 0;

  // Converts the nodes of `graph`, a subgraph attribute of this node (an If
  // branch), into the graph, in order, with the enclosing graph's values
  // visible; returns the values of its outputs. A node the build does not
  // convert is an error naming it.
  virtual absl::StatusOr<std::vector<NodeId>> InlineSubgraph(const onnx::GraphProto& graph) = 0;

  // The result of ONNX output `i`.
  virtual void SetOutput(int i, NodeId id) = 0;

  // Attributes, with ONNX defaults when absent.
  const onnx::AttributeProto* FindAttr(const std::string& name) const;
  absl::StatusOr<int64_t> AttrInt(const std::string& name, int64_t fallback) const;
  absl::StatusOr<double> AttrFloat(const std::string& name, double fallback) const;
  absl::StatusOr<std::string> AttrString(const std::string& name, std::string fallback) const;
  // nullopt when absent.
  absl::StatusOr<std::optional<std::vector<int64_t>>> AttrInts(const std::string& name) const;

  // InvalidArgument "<OpType> node '<name>': <message>".
  absl::Status Error(const std::string& message) const;
  absl::Status Unsupported(const std::string& what) const;  // "... is not supported"
  // Normalizes a possibly negative axis against `rank`.
  absl::StatusOr<int> Axis(int64_t axis, int rank) const;
};

// The newest default-domain (ai.onnx) opset the importer knows: every op of
// the table was checked against ONNX's operator changelog up to it.
inline constexpr int64_t kNewestOpset = 21;

// Converts the node in `ctx`. One per op type, registered in import_ops.cc.
using Converter = absl::Status (*)(NodeContext& ctx);

// A converter and the model opsets it implements: the op exists from
// `first_opset` (the version that introduced it) and its meaning is known up
// to `last_opset`. A converter that handles a change of the op's meaning
// (an attribute that became an input, a new mode) reads ctx.opset().
struct OpConverter {
  // Implicit, so that a table entry may be just the converter.
  OpConverter(Converter c, int64_t first = 1, int64_t last = kNewestOpset)
      : convert(c), first_opset(first), last_opset(last) {}
  Converter convert;
  int64_t first_opset;
  int64_t last_opset;
};

// nullptr when the op type (default domain) is not supported.
const OpConverter* FindConverter(const std::string& op_type);
std::vector<std::string> ConverterOpTypes();

}  // namespace rk::compiler::onnx_io

#endif  // REPROKIT_COMPILER_ONNX_IMPORT_CONTEXT_H_
