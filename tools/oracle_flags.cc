#include "tools/oracle_flags.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace rk::tools {

void OracleFlags::Register(FlagSet& flags, bool takes_bundle) {
  const std::string bundle_note = takes_bundle ? "; a BUNDLE's unless given" : "";
  flags.Repeated("opt", &opts,
                 std::string("compile option key=value (see docs/COMPILER.md") +
                     (takes_bundle ? "; added to a BUNDLE's)" : ")"));
  flags.String("device", &device, "cpu or cuda" + bundle_note);
  flags.String("policy", &policy, "accuracy policy: torch, strict or cosine" + bundle_note);
  flags.Double("tol", &tol, "tolerance; 0 = by dtype (1e-4 f32/f64, 1e-2 f16/bf16)" + bundle_note);
  flags.Double("timeout", &timeout, "seconds before a compile-and-run counts as a hang");
  flags.Bool("in-process", &in_process, "judge in this process (no isolation; faster)");
}

absl::Status OracleFlags::CheckTimeout(const FlagSet& flags) const {
  // NaN compares false with everything and Inf never expires: either would
  // let a hanging compile wait forever.
  if (!std::isfinite(timeout) || timeout <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout: expected a finite number of seconds > 0, got ", timeout));
  }
  if (in_process && flags.WasSet("timeout")) {
    return absl::InvalidArgumentError(
        "--timeout needs isolation: --in-process judges in this process, where a hang cannot "
        "be stopped; drop one of them");
  }
  return absl::OkStatus();
}

absl::Status OracleFlags::ApplyTo(const FlagSet& flags, compiler::CompileOptions* options) const {
  if (absl::Status s = CheckTimeout(flags); !s.ok()) return s;
  if (absl::Status s = options->Apply(opts); !s.ok()) return s;
  if (flags.WasSet("device")) return options->Set("device", device);
  return absl::OkStatus();
}

void OracleFlags::DefaultToRecorded(const FlagSet& flags, const std::string& recorded_policy,
                                    double recorded_tol) {
  if (!flags.WasSet("policy")) policy = recorded_policy;
  if (!flags.WasSet("tol")) tol = recorded_tol;
}

repro::Oracle::Config OracleFlags::OracleConfig() const {
  repro::Oracle::Config config;
  config.options.policy = policy;
  config.options.accuracy.tol = tol;
  config.isolate = !in_process;
  config.limits.timeout = absl::Seconds(timeout);
  return config;
}

}  // namespace rk::tools
