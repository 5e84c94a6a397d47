// Rewriter: the shared machinery of the graph passes. A pass walks the old
// graph in order and, per node, either copies it or returns a replacement built
// in the new graph; the rewriter keeps the old -> new id map, so a pass only
// says what a node becomes.
//
// Guarantees: the result is built through GraphBuilder (every node is
// type-checked); inputs keep their ids, names and types; nodes that a rewrite
// made unreachable are dropped (nodes that were already dead are kept, that is
// DCE's decision); a node built to replace a named node inherits its name; a
// graph in which nothing was replaced is left untouched.
//
// Tested by compiler/passes/rewriter_test.cc.
#ifndef REPROKIT_COMPILER_PASSES_REWRITER_H_
#define REPROKIT_COMPILER_PASSES_REWRITER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/graph.h"

namespace rk::compiler {

class Rewriter {
 public:
  // Starts a new graph holding the inputs of `old_graph`.
  explicit Rewriter(const Graph& old_graph);

  const Graph& old_graph() const { return old_; }
  const Graph& new_graph() const { return builder_.graph(); }
  GraphBuilder& builder() { return builder_; }

  // The new node standing for an already visited old node.
  NodeId Map(NodeId old_id) const { return map_[old_id.value]; }
  void SetMap(NodeId old_id, NodeId new_id) { map_[old_id.value] = new_id; }
  // The images of an old node's operands.
  std::vector<NodeId> MapOperands(NodeId old_id) const;
  // Copies an old node with its operands mapped (same op, attributes, name).
  absl::StatusOr<NodeId> Copy(NodeId old_id);
  // Copy, for a visit that needs the copy's id (e.g. to remember it) but does
  // not change the node: returning the result does not count as a change.
  absl::StatusOr<NodeId> Keep(NodeId old_id);
  // Adds a new node; operands are new ids.
  absl::StatusOr<NodeId> Add(Op op, std::vector<NodeId> operands, Attributes attrs = {});

  // Maps the old outputs, drops what the rewrite made dead and returns the
  // finished graph.
  absl::StatusOr<Graph> Finish();

 private:
  friend absl::StatusOr<bool> RewriteNodes(
      Graph& graph,
      const std::function<absl::StatusOr<std::optional<NodeId>>(Rewriter&, NodeId)>& rewrite);

  const Graph& old_;
  GraphBuilder builder_;
  std::vector<NodeId> map_;
  // Names of replaced old nodes, for the fresh nodes that replaced them.
  std::map<int32_t, std::string> inherited_names_;
  // The last Keep: old id value and its copy.
  std::optional<std::pair<int32_t, NodeId>> last_keep_;
};

// What a pass says about one old node: a replacement (a new id), or nullopt to
// copy the node unchanged.
using NodeRewrite = std::function<absl::StatusOr<std::optional<NodeId>>(Rewriter&, NodeId)>;

// Visits every non-input node of `graph` in order; if any visit returned a
// replacement, replaces `graph` with the rewritten graph and returns true.
absl::StatusOr<bool> RewriteNodes(Graph& graph, const NodeRewrite& rewrite);

// "%41 (relu)": how pass details and errors name a node.
std::string Describe(const Graph& graph, NodeId id);

// constant, full or iota.
bool IsConstantLike(const Graph& graph, NodeId id);
// The value every element of a constant or full node has, if they all have
// the same one (compared bitwise, so -0.0 and 0.0 differ).
std::optional<double> SplatValue(const Graph& graph, NodeId id);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_PASSES_REWRITER_H_
