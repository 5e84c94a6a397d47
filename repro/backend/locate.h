// Finding an external backend from what the user named (`--backend`,
// `backend=` in compile options): a path, `reprokit` (this binary's own
// `backend-serve`), or a name looked up in $REPROKIT_BACKEND_PATH, the source
// tree's backends/ folder and $PATH (docs/BACKENDS.md, "Naming a backend").
//
// Tested by repro/backend/backend_process_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_LOCATE_H_
#define REPROKIT_REPRO_BACKEND_LOCATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rk::repro {

struct BackendCommand {
  std::string spec;               // as named: "torch_inductor", "/opt/x/serve", "reprokit"
  std::vector<std::string> argv;  // what to run
};

// Registers how this binary serves the built-in compiler through the
// protocol (argv[0] should be an absolute path), e.g. {"/path/reprokit",
// "backend-serve"}. Binaries that never call it cannot use `reprokit`.
void SetSelfBackendCommand(std::vector<std::string> argv);

// NotFound (with the places searched) when nothing matches; the result is
// not started, only found.
absl::StatusOr<BackendCommand> LocateBackend(const std::string& spec);

// The absolute form of a spec to record: paths made absolute, names as given.
std::string CanonicalBackendSpec(const std::string& spec);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_LOCATE_H_
