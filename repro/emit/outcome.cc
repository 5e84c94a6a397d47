#include "repro/emit/outcome.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace rk::repro {
namespace {

// Leading field of a crash detail: "SIGSEGV:frame|frame" or "SIGSEGV@phase".
std::string SignalOf(const std::string& detail) {
  size_t end = detail.find_first_of(":@");
  return end == std::string::npos ? detail : detail.substr(0, end);
}

ReproDecision Bisect(ReproMatch match, bool any_failure) {
  switch (match) {
    case ReproMatch::kReproduces:
      return {1, "BAD: the recorded failure reproduces", ""};
    case ReproMatch::kNotReproduced:
      return {0, "GOOD: the failure does not reproduce", ""};
    case ReproMatch::kDifferentFailure:
      if (any_failure) return {1, "BAD: a different failure (counted as bad: --any_failure)", ""};
      return {125, "SKIP: a different failure; this commit cannot tell",
              "pass --any_failure to count any failure as bad"};
    case ReproMatch::kCannotJudge:
      return {125, "SKIP: the oracle cannot judge this commit", ""};
  }
  return {125, "SKIP: unknown outcome", ""};
}

}  // namespace

std::string_view ReproMatchName(ReproMatch match) {
  switch (match) {
    case ReproMatch::kReproduces:
      return "reproduces";
    case ReproMatch::kNotReproduced:
      return "does not reproduce";
    case ReproMatch::kDifferentFailure:
      return "different failure";
    case ReproMatch::kCannotJudge:
      return "cannot judge";
  }
  return "unknown";
}

ReproMatch CompareWithExpected(const Signature& expected, const Verdict& actual,
                               std::string* note) {
  if (actual.kind == VerdictKind::kPass) return ReproMatch::kNotReproduced;
  if (actual.kind == VerdictKind::kCannotJudge) return ReproMatch::kCannotJudge;
  if (actual.signature == expected) return ReproMatch::kReproduces;
  if (actual.kind != expected.kind) return ReproMatch::kDifferentFailure;
  if (actual.kind == VerdictKind::kTimeout) {
    if (note != nullptr) *note = "timed out in a different phase";
    return ReproMatch::kReproduces;
  }
  if (actual.kind == VerdictKind::kCrash &&
      SignalOf(actual.signature.detail) == SignalOf(expected.detail)) {
    if (note != nullptr) *note = "same signal, different frames";
    return ReproMatch::kReproduces;
  }
  return ReproMatch::kDifferentFailure;
}

ReproDecision Decide(ReproMatch match, RunnerMode mode, bool known_failure, bool any_failure,
                     const std::string& target) {
  if (mode == RunnerMode::kBisect) return Bisect(match, any_failure);
  if (known_failure) {
    switch (match) {
      case ReproMatch::kReproduces:
        if (!target.empty()) {
          return {0, absl::StrCat("PASS: the known failure is still present in ", target), ""};
        }
        return {0, "PASS: the known failure still reproduces", ""};
      case ReproMatch::kNotReproduced:
        if (!target.empty()) {
          return {1,
                  absl::StrCat("FAIL: the known failure no longer reproduces: fixed in ", target,
                               "? remove known_failure"),
                  "if the target fixed it, drop known_failure = True (the repro then guards "
                  "the fix as a regression test) and note the version in docs/FOUND_BUGS.md"};
        }
        return {1, "FAIL: the known failure no longer reproduces (fixed?)",
                "if the fix is intended, re-emit without --known-failure to keep it as a "
                "regression test"};
      case ReproMatch::kDifferentFailure:
        return {1, "FAIL: the known failure changed into a different failure", ""};
      case ReproMatch::kCannotJudge:
        return {1, "FAIL: the oracle cannot judge this repro", ""};
    }
  }
  switch (match) {
    case ReproMatch::kReproduces:
      return {1, "FAIL: the recorded failure reproduces (the bug is present)",
              "fix the compiler, or mark the repro known_failure = True to track an open bug"};
    case ReproMatch::kNotReproduced:
      return {0, "PASS: the failure does not reproduce (the bug stays fixed)", ""};
    case ReproMatch::kDifferentFailure:
      return {1, "FAIL: a different failure than the recorded one", ""};
    case ReproMatch::kCannotJudge:
      return {1, "FAIL: the oracle cannot judge this repro", ""};
  }
  return {1, "FAIL: unknown outcome", ""};
}

}  // namespace rk::repro
