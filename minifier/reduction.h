// The contract between reductions and the engine.
//
// A reduction only decides WHAT to try. Given the current candidate it
// returns a ReductionPlan: a number of targets (nodes, outputs, inputs, cut
// points, shrink levels, ...) and a function that builds the candidate in
// which a chosen set of targets is reduced. The engine decides HOW: which
// sets to try (binary search or ProbDD, probabilistic delta debugging, per
// the table in reductions.def), validation, memoization, parallel
// speculation and acceptance. Every reduction has the same signature, ReductionFn.
//
// Search kinds:
//   kBinarySearch: targets are ordered from the most aggressive (0) to the
//     least; the engine looks for the smallest target that still fails,
//     building each probe from exactly one target.
//   kAggressiveFirst: like kBinarySearch, but target 0 is tried first (for
//     reductions whose most aggressive target usually works).
//   kFirstInteresting: targets are alternatives; the engine tries them in
//     order and takes the first that still fails.
//   kProbDd: targets are independent; the engine runs ProbDD (search.h) to
//     find a large set to reduce at once and builds from the union of
//     everything accepted so far plus the set under test.
//
// Tested through minifier/reductions/*_test.cc and minifier/engine_test.cc.
#ifndef REPROKIT_MINIFIER_REDUCTION_H_
#define REPROKIT_MINIFIER_REDUCTION_H_

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/tensor.h"
#include "minifier/candidate.h"
#include "minifier/recorded_values.h"

namespace rk::minifier {

enum class SearchKind { kBinarySearch, kAggressiveFirst, kFirstInteresting, kProbDd };

// Which oracles a reduction is scheduled for: every one, only cheap ones
// (milliseconds a call: the built-in compiler) or only costly ones (an
// external backend's compile: seconds, growing with the candidate).
enum class OracleCost { kAnyOracle, kCheapOracle, kCostlyOracle };

// When a reduction joins the schedule: kNodes ones (removing nodes and
// outputs, simplifying ops and dtypes) run to their fixed point first;
// kValues ones (shrinking shapes and input values) join after that.
enum class ReductionPhase { kNodes, kValues };

struct ReductionInput {
  const Candidate& current;
  // The recorded value of every node of current.graph, in the node's dtype,
  // read lazily from the run's content store (recorded_values.h); what cuts
  // feed to new inputs. Null for reductions that do not need values.
  RecordedValues* values = nullptr;
};

struct ReductionPlan {
  int num_targets = 0;
  // Builds the candidate with the targets in `chosen` (sorted, unique,
  // in [0, num_targets)) reduced. An error means "invalid candidate".
  std::function<absl::StatusOr<Candidate>(absl::Span<const int> chosen)> build;
  // What speculation (-j) assumes of the first proposal until an answer is
  // known: a plan whose probes usually keep the failure (cut_head after
  // truncate_tail has made the culprit the last node) says so, and its chain
  // of accepted steps is judged side by side from the first round. Only
  // speed depends on it, never the result.
  bool first_guess_interesting = false;
};

using ReductionFn = ReductionPlan (*)(const ReductionInput& input);

struct ReductionInfo {
  std::string_view name;  // the stem: file, function, --only name, stats key
  ReductionFn plan;
  SearchKind search;
  bool needs_values;  // whether the plan reads ReductionInput::values
  OracleCost oracles;
  ReductionPhase phase;
};

// Every reduction, in schedule order (reductions.def).
absl::Span<const ReductionInfo> AllReductions();
const ReductionInfo* FindReduction(std::string_view name);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_REDUCTION_H_
