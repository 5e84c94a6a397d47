// Which inputs of a generated graph the fuzzer marks for gradients
// (`reprokit fuzz --grad`, CampaignOptions::grad), so the oracle judges the
// joint graph (repro/oracle/gradients.h). Deterministic per seed.
//
// Tested by testing/fuzz/false_alarm_test.cc (500 marked graphs pass without
// faults) and tools/grad_cli_test.sh (a campaign finds a backward-only fault).
#ifndef REPROKIT_TESTING_FUZZ_GRADIENT_MARKS_H_
#define REPROKIT_TESTING_FUZZ_GRADIENT_MARKS_H_

#include <cstdint>
#include <string>

#include "compiler/ir/graph.h"

namespace rk::fuzz {

// `mode`: "none" (the graph unchanged), "all-float", or "random" (a seeded
// random non-empty subset of the float inputs). The graph comes back
// unchanged when it has no float input or no joint graph can be built (an op
// without a gradient rule).
compiler::Graph MarkForGradients(const compiler::Graph& graph, const std::string& mode,
                                 uint64_t seed);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_GRADIENT_MARKS_H_
