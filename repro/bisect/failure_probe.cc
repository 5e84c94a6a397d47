#include "repro/bisect/failure_probe.h"

namespace rk::repro {

absl::StatusOr<Verdict> FailureProbe::Judge(const compiler::CompileOptions& options) {
  compiler::CompileOptions judged = options;
  judged.dump_dir.clear();
  ++judgements_;
  return oracle_->Judge(target_->graph, target_->inputs, judged);
}

bool FailureProbe::IsTargetFailure(const Verdict& verdict) const {
  return IsFailure(verdict.kind) && verdict.signature == target_->signature;
}

bool SafeToCompileInProcess(VerdictKind isolated_verdict) {
  return isolated_verdict != VerdictKind::kCrash && isolated_verdict != VerdictKind::kTimeout;
}

compiler::CompileOptions WithoutFaults(const compiler::CompileOptions& options) {
  compiler::CompileOptions out = options;
  out.faults.clear();
  out.dump_dir.clear();
  return out;
}

}  // namespace rk::repro
