// The flags that say what a command compiles and how its oracle judges it,
// shared by `check`, `capture` and `bisect`: --backend, --opt, --device,
// --policy, --tol, --timeout, --in-process and --grad (which inputs'
// gradients are judged too: repro/oracle/gradients.h). Registered in one place so that every command
// spells, documents and defaults them alike.
//
// With an external backend (--backend, or a bundle's), --opt items other than
// device= are the backend's own options (compile option backend_options; the
// oracle checks them against the backend's hello). Needs the FlagSet they are
// registered on to be parsed before the values are read. Guarantees: --device applies after --opt (the explicit flag wins);
// for a bundle input, --policy and --tol override the bundle's recorded values
// only when given on the command line.
//
// Tested by tools/oracle_flags_test.cc.
#ifndef REPROKIT_TOOLS_ORACLE_FLAGS_H_
#define REPROKIT_TOOLS_ORACLE_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/oracle.h"
#include "tools/flags.h"

namespace rk::tools {

struct OracleFlags {
  std::vector<std::string> opts;  // "key=value"
  std::string backend = "builtin";
  std::string device = "cpu";
  std::string policy = "torch";
  double tol = 0;
  double timeout = 60;
  bool in_process = false;
  std::string grad;  // --grad: names, all-float or none; "" = the graph's marks

  // Registers the flags on `flags`, which writes into this struct.
  // `takes_bundle`: the command also reads a bundle whose options, policy and
  // tolerance the flags override; the help says so.
  void Register(FlagSet& flags, bool takes_bundle);

  // --timeout is finite and > 0, and not combined with --in-process (which
  // cannot stop a hang). InvalidArgument otherwise. Run by ApplyTo.
  absl::Status CheckTimeout(const FlagSet& flags) const;

  // Checks --timeout, adds --opt to `options` (defaults or a bundle's), then
  // --device when it was given. InvalidArgument for a malformed or unknown
  // option.
  absl::Status ApplyTo(const FlagSet& flags, compiler::CompileOptions* options) const;

  // For a bundle input: its recorded policy and tolerance replace the
  // defaults, unless --policy or --tol was given.
  void DefaultToRecorded(const FlagSet& flags, const std::string& recorded_policy,
                         double recorded_tol);

  // The graph with the inputs --grad names marked `grad` (and no others);
  // the graph unchanged without --grad. InvalidArgument naming an unknown or
  // non-float input.
  absl::StatusOr<compiler::Graph> ApplyGrad(const FlagSet& flags,
                                            const compiler::Graph& graph) const;

  // The oracle's configuration: policy, tolerance, isolation and timeout.
  repro::Oracle::Config OracleConfig() const;
};

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_ORACLE_FLAGS_H_
