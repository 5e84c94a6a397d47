// bypass_broadcast: replace a broadcasting node by its smaller operand.
// One target per (compute node, operand) pair where the operand has the
// node's dtype but fewer elements (a bias, a keepdim reduction's result fed
// to an elementwise op); a candidate forwards the node's users to that
// operand, and they re-infer their types from it. A user that cannot take the
// smaller type makes the candidate invalid (never judged). When the operand is
// a reduction with keepdim=true read by that node alone, a second target also
// drops its kept dims (keepdim=false): a fused reduction behaves differently
// without its size-1 dims. What bypass_node cannot do, since it keeps every
// type: `cast(mul(%full, reduce_mean(%x) {keepdim=true}))` becomes
// `cast(reduce_mean(%x) {keepdim=false})`.
//
// Tested by minifier/reductions/bypass_broadcast_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_BYPASS_BROADCAST_H_
#define REPROKIT_MINIFIER_REDUCTIONS_BYPASS_BROADCAST_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan BypassBroadcast(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_BYPASS_BROADCAST_H_
