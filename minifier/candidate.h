// A minimization candidate: a graph plus one tensor per graph input, and the
// two things the engine needs to compare candidates: a complexity score and a
// memoization key.
//
// The score orders candidates lexicographically by
//   1. compute nodes (every node but input/constant/full/iota; a composite
//      counts one more than its decomposition, so lowering it is progress),
//   2. total elements of the graph inputs,
//   3. total nodes (sources included),
//   4. outputs,
//   5. dtype distance from f32 (f16/bf16: 2, f64/i64: 1, others 0, summed),
//   6. sum of ranks of the inputs.
// The engine accepts a candidate only if its score is strictly smaller than
// the current one, which makes every run terminate.
//
// The key is the SHA-256 of the canonical graph text and of every input's
// type and bytes: two candidates with the same key judge the same way.
//
// Tested by minifier/rewrite_test.cc.
#ifndef REPROKIT_MINIFIER_CANDIDATE_H_
#define REPROKIT_MINIFIER_CANDIDATE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"

namespace rk::minifier {

struct Candidate {
  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;  // aligned with graph.inputs()
};

struct Score {
  std::array<int64_t, 6> terms{};

  int64_t compute_nodes() const { return terms[0]; }
  int64_t input_elements() const { return terms[1]; }
  auto operator<=>(const Score&) const = default;
  // "nodes=3 elements=8 total=4 outputs=1 dtype=0 rank=1".
  std::string ToString() const;
};

// Whether the op produces a value from nothing (input, constant, full, iota).
bool IsSourceOp(compiler::Op op);
// Compute nodes of `graph`, composites weighted as in the score.
int64_t CountComputeNodes(const compiler::Graph& graph);
Score ComputeScore(const Candidate& candidate);
std::string CandidateKey(const Candidate& candidate);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_CANDIDATE_H_
