// window_scan: keep one window of consecutive compute nodes.
// The compute nodes (topological order) are split into 8 windows of equal
// size; target w keeps window w alone: the values it reads from earlier nodes
// become new inputs holding their recorded values (as cut_head does), and the
// values it hands to later nodes, with the original outputs inside it,
// become its outputs (as truncate_tail does). The engine tries the windows
// in order and takes the first that still fails; the fixed point then scans
// the kept window again, an eighth at a time.
//
// For costly oracles only (reductions.def): each probe is an eighth of the
// graph, so finding a single culprit in N nodes compiles about N nodes in all
// at each level, where a binary search over cut points compiles about
// N/2 per probe. A failure that needs nodes of two windows fails in none of
// them: the scan then costs its 8 probes and keep_cone and truncate_tail do
// the work. Graphs under 8 compute nodes have no targets.
//
// Tested by minifier/reductions/window_scan_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTIONS_WINDOW_SCAN_H_
#define REPROKIT_MINIFIER_REDUCTIONS_WINDOW_SCAN_H_

#include "minifier/reduction.h"

namespace rk::minifier {

ReductionPlan WindowScan(const ReductionInput& input);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTIONS_WINDOW_SCAN_H_
