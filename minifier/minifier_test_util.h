// Helpers shared by the minifier's tests and benchmark: candidates from graph
// text, reduction application, and random DAGs with planted culprits.
#ifndef REPROKIT_MINIFIER_MINIFIER_TEST_UTIL_H_
#define REPROKIT_MINIFIER_MINIFIER_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/op.h"
#include "minifier/candidate.h"
#include "minifier/recorded_values.h"
#include "minifier/reduction.h"
#include "minifier/scratch_store.h"

namespace rk::minifier {

// Parses graph text (CHECK-fails on error) with seeded inputs (seed 0).
Candidate ParseCandidate(std::string_view text);
std::string PrintCandidate(const Candidate& candidate);

// Recorded values of `candidate` (reference interpreter, native dtypes) in a
// scratch store; CHECK-fails on error.
struct TestValues {
  std::unique_ptr<ScratchStore> store;
  std::unique_ptr<RecordedValues> values;
};
TestValues RecordTestValues(const Candidate& candidate, ValueCacheLimits limits = {});

// Plans `reduction` on `candidate` (with recorded values) and builds the
// targets in `chosen`; the printed graph or "error: <message>".
std::string ApplyReduction(std::string_view reduction, const Candidate& candidate,
                           std::vector<int> chosen);
int NumTargets(std::string_view reduction, const Candidate& candidate);

struct RandomDagOptions {
  uint64_t seed = 1;
  int nodes = 50;   // compute nodes, the planted ones included
  int inputs = 3;
  int window = 6;   // operands mostly come from the last `window` values
  // Ops planted as a chain (each reads the previous) at a random position;
  // the filler never uses them, so the planted chain is the only culprit.
  std::vector<compiler::Op> planted = {compiler::Op::kRelu};
};

// A verified DAG of elementwise f32[4,8] ops whose values stay in [-1, 1]
// (neg, abs, sin, cos, tanh, sigmoid, mul, maximum, minimum); every node
// reaches an output.
Candidate RandomDag(const RandomDagOptions& options);

// Whether `graph` holds a chain of `ops` (each node reading the previous).
bool HasChain(const compiler::Graph& graph, const std::vector<compiler::Op>& ops);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_MINIFIER_TEST_UTIL_H_
