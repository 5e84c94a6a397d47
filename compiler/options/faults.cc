#include "compiler/options/faults.h"

#include <csignal>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rk::compiler {
namespace {

constexpr FaultKind kAllKinds[] = {
    FaultKind::kAccuracy,     FaultKind::kCompileError,     FaultKind::kCrash,
    FaultKind::kAbort,        FaultKind::kHang,             FaultKind::kRuntimeCrash,
    FaultKind::kNondeterministic, FaultKind::kDropLast,     FaultKind::kWrongIndex,
};

constexpr char kVjpPrefix[] = "vjp:";
constexpr size_t kVjpPrefixSize = 4;

// The backward-only faults: each models a real gradient-rule bug and keeps
// the gradient's shape, so only its values are wrong.
struct VjpFault {
  Op op;
  FaultKind kind;
};
constexpr VjpFault kVjpFaults[] = {
    {Op::kTranspose, FaultKind::kWrongPerm},
    {Op::kReduceSum, FaultKind::kDropBroadcast},
    {Op::kMatmul, FaultKind::kReshapeTranspose},
    {Op::kSoftmax, FaultKind::kDropSum},
    {Op::kMul, FaultKind::kSwapOperands},
};

constexpr FaultKind kProcessKinds[] = {FaultKind::kCompileError, FaultKind::kCrash,
                                       FaultKind::kAbort, FaultKind::kHang};

// Passes a fault may target: those that number their rewrites (required
// lowering never asks PassContext::ShouldApply, so a fault on it could not fire).
std::vector<std::string> FaultablePasses() {
  std::vector<std::string> names;
#define GRAPH_PASS(stem, function, optional) \
  if (optional) names.push_back(#stem);
#define LATE_PASS(stem) names.push_back(#stem);
#include "compiler/options/passes.def"
#undef GRAPH_PASS
#undef LATE_PASS
  return names;
}

bool IsFaultablePass(std::string_view target) {
  for (const std::string& name : FaultablePasses()) {
    if (name == target) return true;
  }
  return false;
}

// Ops that reach code generation: not graph inputs, and not composites, which
// the decompose pass lowers before any fault could see them.
bool IsFaultableOp(Op op) { return op != Op::kInput && GetOpKind(op) != OpKind::kComposite; }

// Ops that compute no value of their own: sources that only materialize an
// attribute (full, iota, constant) and layout ops that only move elements. The
// value faults (accuracy, nondeterministic) would never fire on them, so they
// are refused rather than accepted and silently ignored. pad computes its fill
// and counts as a value op.
bool ComputesNoValue(Op op) {
  if (op == Op::kFull || op == Op::kIota || op == Op::kConstant) return true;
  return GetOpKind(op) == OpKind::kLayout && op != Op::kPad;
}

std::vector<FaultKind> ValidKinds(std::string_view target) {
  std::vector<FaultKind> kinds;
  if (target.substr(0, kVjpPrefixSize) == kVjpPrefix) {
    std::optional<Op> op = ParseOp(target.substr(kVjpPrefixSize));
    for (const VjpFault& fault : kVjpFaults) {
      if (op.has_value() && fault.op == *op) kinds.push_back(fault.kind);
    }
  } else if (std::optional<Op> op = ParseOp(target); op.has_value() && IsFaultableOp(*op)) {
    for (FaultKind kind : kAllKinds) {
      if (kind == FaultKind::kWrongIndex) continue;
      if (kind == FaultKind::kDropLast && *op != Op::kReduceSum) continue;
      if ((kind == FaultKind::kAccuracy || kind == FaultKind::kNondeterministic) &&
          ComputesNoValue(*op)) {
        continue;
      }
      // A constant is folded into its users' code: there is no access of its own to break.
      if (kind == FaultKind::kRuntimeCrash && *op == Op::kConstant) continue;
      kinds.push_back(kind);
    }
  } else if (IsFaultablePass(target)) {
    kinds.assign(std::begin(kProcessKinds), std::end(kProcessKinds));
    if (target == "fuse") kinds.push_back(FaultKind::kWrongIndex);
  }
  return kinds;
}

std::string ValidTargets() {
  std::vector<std::string> targets;
  for (Op op : kAllOps) {
    if (IsFaultableOp(op)) targets.emplace_back(OpName(op));
  }
  for (const std::string& pass : FaultablePasses()) targets.push_back(pass);
  for (const VjpFault& fault : kVjpFaults) {
    targets.push_back(absl::StrCat(kVjpPrefix, std::string(OpName(fault.op))));
  }
  return absl::StrJoin(targets, ", ");
}

std::string KindList(const std::vector<FaultKind>& kinds) {
  return absl::StrJoin(kinds, ", ", [](std::string* out, FaultKind kind) {
    out->append(std::string(FaultKindName(kind)));
  });
}

absl::StatusOr<Fault> ParseOne(const std::string& spec) {
  // A backward-only fault's target is itself "vjp:<op>".
  const size_t skip = spec.rfind(kVjpPrefix, 0) == 0 ? kVjpPrefixSize : 0;
  size_t colon = spec.find(':', skip);
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fault '", spec,
                     "': expected <op-or-pass>:<kind> or vjp:<op>:<kind>, e.g. relu:accuracy"));
  }
  std::string target = spec.substr(0, colon);
  std::string kind_text = spec.substr(colon + 1);
  std::vector<FaultKind> valid = ValidKinds(target);
  if (valid.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("fault '", spec, "': unknown target '",
                                                   target, "'; valid targets: ", ValidTargets()));
  }
  for (FaultKind kind : valid) {
    if (FaultKindName(kind) == kind_text) return Fault{target, kind};
  }
  return absl::InvalidArgumentError(absl::StrCat("fault '", spec, "': kind '", kind_text,
                                                 "' does not apply to '", target,
                                                 "'; valid kinds: ", KindList(valid)));
}

[[noreturn]] void CrashWithSegfault() {
  // The pointer itself is volatile so the compiler cannot prove it null and
  // turn the store into a trap instruction: the process gets a real SIGSEGV.
  int* volatile target = nullptr;
  *target = 1;
  std::raise(SIGSEGV);
  std::abort();
}

[[noreturn]] void HangForever() {
  while (true) {
    asm volatile("" ::: "memory");
  }
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kAccuracy: return "accuracy";
    case FaultKind::kCompileError: return "compile_error";
    case FaultKind::kCrash: return "crash";
    case FaultKind::kAbort: return "abort";
    case FaultKind::kHang: return "hang";
    case FaultKind::kRuntimeCrash: return "runtime_crash";
    case FaultKind::kNondeterministic: return "nondeterministic";
    case FaultKind::kDropLast: return "drop_last";
    case FaultKind::kWrongIndex: return "wrong_index";
    case FaultKind::kWrongPerm: return "wrong_perm";
    case FaultKind::kDropBroadcast: return "drop_broadcast";
    case FaultKind::kReshapeTranspose: return "reshape_transpose";
    case FaultKind::kDropSum: return "drop_sum";
    case FaultKind::kSwapOperands: return "swap_operands";
  }
  return "unknown";
}

absl::StatusOr<FaultSet> FaultSet::Parse(absl::Span<const std::string> specs) {
  FaultSet set;
  for (const std::string& spec : specs) {
    absl::StatusOr<Fault> fault = ParseOne(spec);
    if (!fault.ok()) return fault.status();
    if (!set.Has(fault->target, fault->kind)) set.faults_.push_back(*std::move(fault));
  }
  return set;
}

bool FaultSet::Has(std::string_view target, FaultKind kind) const {
  for (const Fault& fault : faults_) {
    if (fault.kind == kind && fault.target == target) return true;
  }
  return false;
}

bool FaultSet::Has(Op op, FaultKind kind) const { return Has(OpName(op), kind); }

bool FaultSet::HasVjp(Op op, FaultKind kind) const {
  return Has(absl::StrCat(kVjpPrefix, std::string(OpName(op))), kind);
}

absl::Status FaultSet::FireCompileTimeFaults(std::string_view target) const {
  for (const Fault& fault : faults_) {
    if (fault.target != target) continue;
    switch (fault.kind) {
      case FaultKind::kCompileError:
        return absl::InternalError(absl::StrCat("injected fault: ", fault.target, ":",
                                                std::string(FaultKindName(fault.kind))));
      case FaultKind::kCrash:
        CrashWithSegfault();
      case FaultKind::kAbort:
        std::abort();
      case FaultKind::kHang:
        HangForever();
      default:
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler
