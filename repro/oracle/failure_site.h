// Which op an accuracy (or nondeterministic) failure is named after: the one
// rule that capture, check, the fuzzer's dedup and the minifier all see,
// because every one of them takes its signature from the oracle (oracle.h),
// which asks this.
//
// The oracle sees outputs only, and an error shows at every output downstream
// of where it started; the signature should name where it started. So:
//   1. A planted value fault (`<op>:accuracy`, `reduce_sum:drop_last`; in
//      options.faults, or for an external backend in its `faults` options, as
//      the built-in compiler served through the protocol takes them) on an
//      op X that lies at or above a failing output names X: the earliest such
//      node in topological order of the graph with its composites lowered
//      (the compiler's `decompose` pass, so an X inside a softmax counts), with
//      that node's dtype (for outputs that differ between runs, the planted
//      fault is `<op>:nondeterministic`). The fault's op is known, and every
//      graph the minimizer can shrink the failure to still holds that X, so a
//      capture and its minimized bundle carry the same signature.
//   2. Otherwise the failing output that comes first in topological order
//      (nearest the inputs; ties by output index), with its op and dtype. The
//      order of the outputs does not matter.
// `output` is always a failing output: the one the message describes and the
// fp64 recompile checks (for rule 1, the first failing output by topological
// order that has the named node above it).
//
// Tested by repro/oracle/failure_site_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_FAILURE_SITE_H_
#define REPROKIT_REPRO_ORACLE_FAILURE_SITE_H_

#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

struct FailureSite {
  int output = -1;     // index into graph.outputs()
  std::string op;      // what the signature names
  std::string dtype;
  bool planted = false;  // named by rule 1
};

// `failing` lists the indices of the outputs judged failing (not empty).
FailureSite LocateAccuracyFailure(const compiler::Graph& graph,
                                  const compiler::CompileOptions& options,
                                  absl::Span<const int> failing);
// The same rules for outputs that differ between two runs, with
// `<op>:nondeterministic` as the planted fault.
FailureSite LocateNondeterminism(const compiler::Graph& graph,
                                 const compiler::CompileOptions& options,
                                 absl::Span<const int> differing);

// Whether a failure of `graph` could be named (op, dtype) at all: some node
// of the graph or of its lowering has that op and dtype. The rules above name
// only such nodes, so a graph without one cannot fail with that signature,
// and the minimizer need not ask the oracle.
bool CanNameFailure(const compiler::Graph& graph, std::string_view op, std::string_view dtype);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_FAILURE_SITE_H_
