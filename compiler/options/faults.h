// Fault injection, FOR TESTING THE HARNESS ONLY: planted, named compiler bugs
// whose minimal failing graph is known, so the oracle, minimizer, bisector and
// fuzzer can be tested against ground truth. Off unless CompileOptions::faults
// names them. docs/FAULTS.md lists every fault and what it does.
//
// A fault is `<target>:<kind>`, target an op name (ops.def) or a pass name:
//   <op>:accuracy          small deterministic wrong result wherever the op is computed
//   <op>:compile_error     Compile returns Internal("injected fault: <op>:compile_error")
//   <op>:crash             SIGSEGV while compiling a graph containing the op
//   <op>:abort             abort() while compiling
//   <op>:hang              endless loop while compiling
//   <op>:runtime_crash     the generated code makes a bad memory access
//   <op>:nondeterministic  the result varies from run to run
//   reduce_sum:drop_last   reductions skip the last element of each row
//   fuse:wrong_index       off-by-one index when a reduction is fused with an epilogue
//   <pass>:<compile_error|crash|abort|hang>  fires when the pass applies a rewrite
//   vjp:<op>:<kind>        a wrong gradient rule: compiler/autodiff's
//                          BuildJointGraph emits a faulty backward for the op
//                          (forward untouched; compiling ignores these):
//                          vjp:transpose:wrong_perm, vjp:reduce_sum:drop_broadcast,
//                          vjp:matmul:reshape_transpose, vjp:softmax:drop_sum,
//                          vjp:mul:swap_operands
// Each fires only where its op or pattern is present in the graph being
// compiled (after optional passes), so the minimal failing graph is known.
//
// Tested by compiler/options/faults_test.cc.
#ifndef REPROKIT_COMPILER_OPTIONS_FAULTS_H_
#define REPROKIT_COMPILER_OPTIONS_FAULTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/op.h"

namespace rk::compiler {

enum class FaultKind {
  kAccuracy,
  kCompileError,
  kCrash,
  kAbort,
  kHang,
  kRuntimeCrash,
  kNondeterministic,
  kDropLast,
  kWrongIndex,
  // Backward-only (target "vjp:<op>"), applied by compiler/autodiff.
  kWrongPerm,
  kDropBroadcast,
  kReshapeTranspose,
  kDropSum,
  kSwapOperands,
};

std::string_view FaultKindName(FaultKind kind);  // "accuracy", "drop_last", ...

struct Fault {
  std::string target;  // op or pass name, or "vjp:<op>"
  FaultKind kind;
};

class FaultSet {
 public:
  FaultSet() = default;
  // Parses "relu:accuracy" items; InvalidArgument for an unknown target or
  // kind, or a kind that makes no sense for the target, listing valid ones.
  static absl::StatusOr<FaultSet> Parse(absl::Span<const std::string> specs);

  bool empty() const { return faults_.empty(); }
  bool Has(std::string_view target, FaultKind kind) const;
  bool Has(Op op, FaultKind kind) const;
  // Whether the backward-only fault vjp:<op>:<kind> is planted.
  bool HasVjp(Op op, FaultKind kind) const;
  const std::vector<Fault>& faults() const { return faults_; }

  // Fires the process-level faults (compile_error, crash, abort, hang) for
  // `target`: returns the compile_error Status, or never returns.
  absl::Status FireCompileTimeFaults(std::string_view target) const;

 private:
  std::vector<Fault> faults_;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_OPTIONS_FAULTS_H_
