// Fusion: partitions an optimized graph into groups, each compiled to one
// kernel (compiler/kernel/).
//
// Rules (docs/COMPILER.md has the rationale):
// - Elementwise ops, casts, full, iota and layout ops (reshape, transpose,
//   broadcast_to, slice, squeeze, unsqueeze, pad) fuse into their users' group
//   when all users are in one group; layout ops act as index maps there (pad:
//   an index map and a select of its value outside the operand). gather fuses
//   the same way, an index map with a loaded position.
// - A node used by several groups is materialized (gets a buffer), except
//   trivially cheap ones (layout, full, iota), which are recomputed in each.
// - Inside a group, a node that is not cheap and would be computed at more
//   than 2 distinct indices per output element (read through several index
//   maps: layout ops, gather) is materialized too, so chains of such reads
//   cannot multiply a kernel's size level by level.
// - A reduction is the root of its group, with its elementwise prologue
//   computed inline. It may instead join its users' elementwise group as the
//   group's reduction, the epilogue, when every path from it to the root is
//   elementwise and the root has either its shape (computed once per output
//   element) or its operand's shape with the reduced axes trailing and keepdim
//   (broadcast back, as in x - max(x)): the reduction then runs once per outer
//   iteration and is never recomputed.
// - Matmul, concat, cumsum and the window ops (conv2d, max_pool2d,
//   avg_pool2d) are roots of their own groups; the operands of a matmul or a
//   window op fuse only cheap layout ops (a transposed operand becomes
//   strides), since their elements are read many times; a cumsum's its
//   elementwise prologue, as a reduction's.
// - Graph outputs, inputs and constants are always materialized.
// - On CUDA, a group computes at most CompileOptions::cuda_max_fused_ops ops
//   that are not cheap (root included; default 144): the next one up the
//   chain is materialized and starts a group of its own. One kernel of 1,000
//   fused ops is one PTX module that one assembler thread takes 600 ms to
//   turn into machine code; cut into kernels of 144 ops, they assemble in
//   parallel (docs/GPU.md, "Cold compile"). The CPU has no cap.
// Every fusion decision is an optional application of pass "fuse"
// (PassContext::ShouldApply), so bisection can find a bad one; a refused
// decision materializes the node.
//
// Tested by compiler/fusion/fusion_test.cc.
#ifndef REPROKIT_COMPILER_FUSION_FUSION_H_
#define REPROKIT_COMPILER_FUSION_FUSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler::fusion {

enum class GroupKind { kElementwise, kReduction, kMatmul, kConcat, kWindow, kScan };

struct FusionGroup {
  GroupKind kind = GroupKind::kElementwise;
  NodeId root;                  // the materialized node the group computes
  std::vector<NodeId> members;  // nodes computed inline (sorted), root excluded
  // An elementwise group's fused reduction (epilogue fusion), else invalid.
  NodeId reduction;
  // With a fused reduction: how many leading root dims enclose it (the
  // reduction runs once per iteration of those loops).
  int outer_dims = 0;
  // The fuse:wrong_index fault applies to this group.
  bool wrong_index = false;
  std::string detail;  // e.g. "%41 (reduce_sum) + epilogue %42 (div)"
};

struct FusionPlan {
  std::vector<FusionGroup> groups;  // in execution order
  // Per node: whether it has a buffer (inputs, constants, group roots).
  std::vector<bool> materialized;
};

absl::StatusOr<FusionPlan> PlanFusion(const Graph& graph, PassContext& context);

// One line per group, for dumps and `reprokit compile`.
std::string PrintFusionPlan(const Graph& graph, const FusionPlan& plan);

}  // namespace rk::compiler::fusion

#endif  // REPROKIT_COMPILER_FUSION_FUSION_H_
