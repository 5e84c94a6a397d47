// The table of vector-Jacobian products: for every op of compiler/ir/ops.def,
// one decision, as data. An entry is
//   kSource             no operands (input, constant, full, iota): a leaf;
//   kRule               a gradient rule, checked against finite differences;
//   kNonDifferentiable  the gradient through the op is zero by definition
//                       (piecewise-constant results: floor, ceil, round,
//                       floordiv; discrete results: argmax, comparisons, logic);
//   kUnsupported        BuildJointGraph fails with Unimplemented naming the op.
// A rule gets the forward node, the joint graph's ids of its operands and
// result, and the upstream gradient `g` (the result's type), and returns one
// gradient per operand, each of that operand's type, or an invalid NodeId
// where the operand needs none (wants[i] false, or the operand is not a
// float). Rules live in vjp_<family>.cc; the table is vjp.cc.
//
// Tested by compiler/autodiff/gradient_check_test.cc: every op of ops.def has
// an entry, every kRule op has gradient-check cases that pass, every
// non-differentiable op gives a zero gradient.
#ifndef REPROKIT_COMPILER_AUTODIFF_VJP_H_
#define REPROKIT_COMPILER_AUTODIFF_VJP_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/autodiff/grad_builder.h"
#include "compiler/ir/graph.h"
#include "compiler/options/faults.h"

namespace rk::compiler::autodiff {

enum class VjpKind { kSource, kRule, kNonDifferentiable, kUnsupported };

struct VjpArgs {
  const Node& node;                 // the forward node: op and attributes
  std::vector<NodeId> x;            // its operands, as joint-graph ids
  NodeId y;                         // its result, as a joint-graph id
  NodeId g;                         // the gradient flowing into the result
  std::vector<bool> wants;          // which operands need a gradient
  const FaultSet& faults;           // backward-only planted faults (vjp:<op>:<kind>)
};

using Grads = std::vector<NodeId>;
using VjpRule = absl::StatusOr<Grads> (*)(GradBuilder& gb, const VjpArgs& args);

struct VjpEntry {
  Op op;
  VjpKind kind;
  VjpRule rule;  // kRule only
};

// The entries, in ops.def order.
absl::Span<const VjpEntry> VjpTable();
// The entry of `op`, or nullptr for an op nobody decided on yet.
const VjpEntry* VjpFor(Op op);

}  // namespace rk::compiler::autodiff

#endif  // REPROKIT_COMPILER_AUTODIFF_VJP_H_
