// GraphBuilder: builds a Graph node by node, validating as it goes.
//
// Every Add* call checks operands (they must exist in this builder), infers
// the result type with InferType and fails with the inference error; nothing
// invalid ever enters the graph. Inputs must be added before other nodes.
//
//   GraphBuilder b("mlp");
//   NodeId x = b.Input("x", TensorType(DType::kF32, {8, 128}));
//   ASSIGN_OR_RETURN(NodeId y, b.Unary(Op::kRelu, x));
//   b.Output(y);
//   ASSIGN_OR_RETURN(Graph g, b.Build());
//
// Tested by compiler/ir/builder_test.cc.
#ifndef REPROKIT_COMPILER_IR_BUILDER_H_
#define REPROKIT_COMPILER_IR_BUILDER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name = "main");

  // A graph input. Fails (returns an invalid id and records the error, see
  // Build) if a non-input node was already added, the name is taken, or `grad`
  // (mark it for a gradient, graph.h's kGradAttr) is asked of a non-float type.
  NodeId Input(const std::string& name, TensorType type, bool grad = false);

  // Adds a node whose type is inferred. `name` may be empty.
  absl::StatusOr<NodeId> Add(Op op, absl::Span<const NodeId> operands, Attributes attrs = {},
                             const std::string& name = "");
  // Adds a node with a declared type; fails if it differs from the inferred
  // one (the parser uses this).
  absl::StatusOr<NodeId> AddWithType(Op op, absl::Span<const NodeId> operands, Attributes attrs,
                                     const TensorType& declared, const std::string& name = "");

  // Conveniences over Add.
  absl::StatusOr<NodeId> Unary(Op op, NodeId x) { return Add(op, {x}); }
  absl::StatusOr<NodeId> Binary(Op op, NodeId a, NodeId b) { return Add(op, {a, b}); }
  absl::StatusOr<NodeId> Constant(HostTensor value, const std::string& name = "");
  absl::StatusOr<NodeId> Full(TensorType type, double value);
  absl::StatusOr<NodeId> Cast(NodeId x, DType dtype);
  absl::StatusOr<NodeId> Reduce(Op op, NodeId x, std::vector<int64_t> axes, bool keepdim);
  absl::StatusOr<NodeId> Reshape(NodeId x, std::vector<int64_t> shape);

  // Marks a node as an output (in call order).
  absl::Status Output(NodeId id);

  const TensorType& type(NodeId id) const { return graph_.type(id); }
  int num_nodes() const { return graph_.num_nodes(); }
  const Graph& graph() const { return graph_; }

  // The finished graph; fails if an earlier Input failed, or there are no
  // outputs. The builder is left empty.
  absl::StatusOr<Graph> Build();

 private:
  absl::Status CheckOperands(absl::Span<const NodeId> operands) const;
  absl::Status CheckName(const std::string& name) const;

  Graph graph_;
  absl::Status deferred_error_;
  // Names taken so far, for duplicate checks in O(1). Only membership is ever
  // asked, so hash order cannot reach any output.
  absl::flat_hash_set<std::string> names_;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_BUILDER_H_
