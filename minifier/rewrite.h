// GraphEdit: the shared vocabulary reductions use to describe a candidate as
// per-node decisions on a base candidate, and ApplyEdit, which builds it.
//
// Per node of the base graph an edit says: keep it, replace it by a new graph
// input holding its recorded value (a "cut"), forward its users to another
// node (bypass), replace it by a `full` splat, or (inputs only) drop it. It may
// also replace the output list. ApplyEdit resolves forwards, keeps only what
// the outputs need (an original input stays unless dropped or left without a
// user by the edit; one unused before the edit stays), rebuilds through
// GraphBuilder so every type is re-inferred, and returns the inputs aligned
// with the new signature. Anything that breaks inference or leaves a dropped
// input in use is InvalidArgument: the engine counts it as an invalid
// candidate and never tests it.
//
// Tested by minifier/rewrite_test.cc.
#ifndef REPROKIT_MINIFIER_REWRITE_H_
#define REPROKIT_MINIFIER_REWRITE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "minifier/candidate.h"
#include "minifier/recorded_values.h"

namespace rk::minifier {

struct GraphEdit {
  enum class Action : uint8_t { kKeep, kToInput, kForward, kToFull, kDrop };

  explicit GraphEdit(const compiler::Graph& base);

  void ToInput(compiler::NodeId id) { actions[id.value] = Action::kToInput; }
  void Forward(compiler::NodeId id, compiler::NodeId to);
  void ToFull(compiler::NodeId id, double value);
  void Drop(compiler::NodeId id) { actions[id.value] = Action::kDrop; }

  std::vector<Action> actions;
  std::vector<compiler::NodeId> forward_to;  // kForward targets (smaller ids)
  std::vector<double> full_value;            // kToFull values
  // Replaces the output list (base ids) when set.
  std::optional<std::vector<compiler::NodeId>> outputs;
};

// `values` holds the recorded value of every base node; only the values of
// live kToInput nodes are read. It may be null when the edit has no kToInput
// action. A value that cannot be read is returned as its error (and kept in
// values->status(), so the engine can tell it from an invalid candidate).
absl::StatusOr<Candidate> ApplyEdit(const Candidate& base, RecordedValues* values,
                                    const GraphEdit& edit);

// Rebuilds `base` on new graph inputs (same count and order; their types come
// from the tensors), re-inferring every type. `mutate`, when set, may adjust
// each other node (its attributes) before it is added. InvalidArgument when
// inference rejects the result.
absl::StatusOr<Candidate> RebuildOnInputs(
    const Candidate& base, std::vector<compiler::HostTensor> inputs,
    const std::function<void(compiler::Node&)>& mutate = nullptr);

// The block of `tensor` at the origin with `shape` (same rank, every dim <=
// the tensor's; or rank 0 for a single-element tensor): how shrinking an
// input keeps its values.
compiler::HostTensor LeadingBlock(const compiler::HostTensor& tensor,
                                  const compiler::Shape& shape);

// Ids of the non-source nodes, in order.
std::vector<compiler::NodeId> ComputeNodeIds(const compiler::Graph& graph);

// A name not in `taken` built from `stem` (`stem`, `stem_1`, ...); adds it.
std::string FreshName(const std::string& stem, absl::flat_hash_set<std::string>& taken);

// The value of every node of `candidate` (indexed by NodeId) from the
// reference interpreter, in the node's dtype. With `fp64`, computed in f64
// and rounded once, so cut inputs carry the exact values, not the native
// reference's rounding errors.
absl::StatusOr<std::vector<compiler::HostTensor>> RecordValues(const Candidate& candidate,
                                                               bool fp64);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REWRITE_H_
