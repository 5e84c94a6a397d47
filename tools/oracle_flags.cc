#include "tools/oracle_flags.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "repro/backend/locate.h"
#include "repro/oracle/gradients.h"

namespace rk::tools {

void OracleFlags::Register(FlagSet& flags, bool takes_bundle) {
  const std::string bundle_note = takes_bundle ? "; a BUNDLE's unless given" : "";
  flags.Repeated("opt", &opts,
                 std::string("compile option key=value (see docs/COMPILER.md") +
                     (takes_bundle ? "; added to a BUNDLE's)" : ")"));
  flags.String("backend", &backend,
               "the compiler judged: builtin, reprokit (the built-in one through the backend "
               "protocol), a backend NAME or a PATH (docs/BACKENDS.md)" +
                   bundle_note);
  flags.String("device", &device, "cpu or cuda" + bundle_note);
  flags.String("policy", &policy, "accuracy policy: torch, strict or cosine" + bundle_note);
  flags.Double("tol", &tol, "tolerance; 0 = by dtype (1e-4 f32/f64, 1e-2 f16/bf16)" + bundle_note);
  flags.Double("timeout", &timeout, "seconds before a compile-and-run counts as a hang");
  flags.Bool("in-process", &in_process, "judge in this process (no isolation; faster)");
  flags.String("grad", &grad,
               "judge gradients too: input names (x,w), all-float, or none; default: the "
               "inputs the graph marks `grad`" + bundle_note);
}

absl::StatusOr<compiler::Graph> OracleFlags::ApplyGrad(const FlagSet& flags,
                                                       const compiler::Graph& graph) const {
  if (!flags.WasSet("grad")) return graph;
  return repro::ApplyGradFlag(graph, grad);
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
  if (flags.WasSet("backend")) {
    const std::string spec = repro::CanonicalBackendSpec(backend);
    if (absl::Status s = options->Set("backend", spec); !s.ok()) return s;
    if (options->backend != spec) options->backend_options.clear();  // another backend's
  }
  if (!options->external()) {
    if (absl::Status s = options->Apply(opts); !s.ok()) return s;
  } else {
    for (const std::string& item : opts) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("option '", item, "': expected key=value"));
      }
      const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
      if (key == "device" || key == "backend" || key == "backend_options") {
        if (absl::Status s = options->Set(key, value); !s.ok()) return s;
        continue;
      }
      // A backend option; a later one replaces an earlier (or recorded) one.
      std::vector<std::string> kept;
      for (const std::string& o : options->backend_options) {
        if (o.substr(0, o.find(':')) != key) kept.push_back(o);
      }
      kept.push_back(absl::StrCat(key, ":", value));
      if (absl::Status s = options->Set("backend_options", absl::StrJoin(kept, ",")); !s.ok()) {
        return s;
      }
    }
  }
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
