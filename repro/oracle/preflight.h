// What is checked before a request is judged, so that a problem of the
// request or of this machine never becomes a verdict (and so never a bundle,
// a fuzz finding or a minified "reproducer"):
//   - the planted fault specs parse (a typo is bad input: InvalidArgument);
//   - the device exists here (device=cuda without a usable GPU: Unavailable,
//     which every subcommand reports as 125, cannot test).
//
// Tested by repro/oracle/preflight_test.cc and tools/cli_test.sh.
#ifndef REPROKIT_REPRO_ORACLE_PREFLIGHT_H_
#define REPROKIT_REPRO_ORACLE_PREFLIGHT_H_

#include "absl/status/status.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

absl::Status CheckFaultSpecs(const compiler::CompileOptions& options);

// Probes the CUDA driver once per process when options.device is "cuda".
absl::Status CheckDeviceAvailable(const compiler::CompileOptions& options);

// Both of the above.
absl::Status Preflight(const compiler::CompileOptions& options);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_PREFLIGHT_H_
