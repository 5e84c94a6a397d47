// The graph IR: a function from named inputs to outputs, as a vector of nodes
// in topological order.
//
// Invariants (checked by Verify in verifier.h):
// - node i's operands all have ids < i, so storage order is a topological order;
// - the graph's inputs are exactly the kInput nodes and come first (ids 0..k-1),
//   in signature order;
// - an input carries no attributes except `grad` (true): the input is marked
//   for a gradient (reverse-mode autodiff, compiler/autodiff), float only;
// - every node's type equals InferType of its op, operand types and attributes;
// - outputs name existing nodes (a node may be returned more than once);
// - node names, when present, are unique and made of [A-Za-z0-9_.].
// Rewrites build a fresh graph through GraphBuilder (builder.h), which maps
// old ids to new ones; there are no pointers between nodes.
//
// Tested by compiler/ir/graph_test.cc.
#ifndef REPROKIT_COMPILER_IR_GRAPH_H_
#define REPROKIT_COMPILER_IR_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/attributes.h"
#include "compiler/ir/op.h"
#include "compiler/ir/shape.h"

namespace rk::compiler {

// Index of a node in its graph. A distinct type so ids are never confused
// with other integers.
struct NodeId {
  int32_t value = -1;

  constexpr NodeId() = default;
  constexpr explicit NodeId(int32_t v) : value(v) {}
  bool valid() const { return value >= 0; }
  auto operator<=>(const NodeId&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, NodeId id) {
    return H::combine(std::move(h), id.value);
  }
};

struct Node {
  Op op = Op::kInput;
  std::vector<NodeId> operands;
  Attributes attrs;
  TensorType type;
  // The text name without '%' ("x", "m"); empty means "print the id".
  std::string name;

  bool operator==(const Node& other) const {
    return op == other.op && operands == other.operands && attrs == other.attrs &&
           type == other.type && name == other.name;
  }
};

// The attribute that marks a graph input for a gradient (`%w: f32[4] grad` in
// the text format). It changes what the graph means to a harness that judges
// gradients, so it is printed, hashed and serialized like any attribute.
inline constexpr char kGradAttr[] = "grad";

// Whether `node` is an input marked for a gradient.
bool IsMarkedForGrad(const Node& node);

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(NodeId id) const { return nodes_[id.value]; }
  Node& mutable_node(NodeId id) { return nodes_[id.value]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const TensorType& type(NodeId id) const { return nodes_[id.value].type; }

  // Ids of the kInput nodes, in signature order (always 0..num_inputs()-1).
  std::vector<NodeId> inputs() const;
  int num_inputs() const;
  const std::vector<NodeId>& outputs() const { return outputs_; }

  // Low-level mutation, for GraphBuilder and the parser. They do not check
  // invariants; call Verify.
  NodeId AppendNode(Node node);
  void AddOutput(NodeId id) { outputs_.push_back(id); }
  void set_outputs(std::vector<NodeId> outputs) { outputs_ = std::move(outputs); }

  // The name used in text: node.name if set, else the decimal id.
  std::string DisplayName(NodeId id) const;
  // Users of every node: users[i] lists the nodes that read node i (in order,
  // a node appears once per operand slot that reads it).
  std::vector<std::vector<NodeId>> ComputeUsers() const;

  // Structural equality (names included).
  bool operator==(const Graph& other) const;
  bool operator!=(const Graph& other) const { return !(*this == other); }

 private:
  std::string name_;
  std::vector<Node> nodes_;
  std::vector<NodeId> outputs_;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_GRAPH_H_
