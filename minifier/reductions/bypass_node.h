// bypass_node: replace a node by one of its operands.
// One target per (compute node, operand) pair where the operand has exactly
// the node's type; a candidate forwards the node's users to that operand
// (the first chosen operand of a node wins).
//
// Tested by minifier/reductions/bypass_node_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_BYPASS_NODE_H_
#define REPROKIT_MINIFIER_REDUCTIONS_BYPASS_NODE_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan BypassNode(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_BYPASS_NODE_H_
