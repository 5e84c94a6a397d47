// FailureProbe: "does this configuration still fail the same way?", the one
// question every bisection asks, answered by the oracle on a fixed graph and
// fixed inputs.
//
// A BisectTarget is a failing compilation: graph, inputs, the failing compile
// options and the failure's signature (repro/oracle/signature.h). The probe
// judges variants of the options (a pass cap, a subset of option changes) with
// the oracle, so crashes and hangs stay in worker processes, and counts the
// judgements so a report can say what the search cost. dump_dir is cleared
// from every judged configuration: dumps are bisection's own business, and
// the oracle's fp64 recompile would overwrite them.
//
// Tested by repro/bisect/pass_bisect_test.cc and option_bisect_test.cc.
#ifndef REPROKIT_REPRO_BISECT_FAILURE_PROBE_H_
#define REPROKIT_REPRO_BISECT_FAILURE_PROBE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct BisectTarget {
  compiler::Graph graph;
  std::vector<compiler::HostTensor> inputs;
  compiler::CompileOptions options;  // the failing configuration
  Signature signature;               // how it fails
};

class FailureProbe {
 public:
  // Both must outlive the probe.
  FailureProbe(Oracle* oracle, const BisectTarget* target) : oracle_(oracle), target_(target) {}

  const BisectTarget& target() const { return *target_; }

  // The oracle's verdict on the target's graph and inputs under `options`.
  absl::StatusOr<Verdict> Judge(const compiler::CompileOptions& options);
  // Whether `verdict` is the target failure (same signature).
  bool IsTargetFailure(const Verdict& verdict) const;

  int64_t judgements() const { return judgements_; }

 private:
  Oracle* oracle_;
  const BisectTarget* target_;
  int64_t judgements_ = 0;
};

// Whether compiling a configuration in this process is safe, given the kind
// of verdict an isolated run of it gave: after a crash or a hang it is not.
bool SafeToCompileInProcess(VerdictKind isolated_verdict);

// `options` without planted faults and without dump_dir. Faults never change
// which optional applications are requested (they fire on grant, or in
// generated code), so this is how bisection counts and names applications of
// a configuration whose faults would kill the calling process.
compiler::CompileOptions WithoutFaults(const compiler::CompileOptions& options);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BISECT_FAILURE_PROBE_H_
