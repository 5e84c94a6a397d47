#include "compiler/driver/compile.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/cpu/cpu_backend.h"
#include "compiler/cuda/cuda_backend.h"
#include "compiler/passes/pass_manager.h"

namespace rk::compiler {

absl::StatusOr<const Backend*> FindBackend(std::string_view device) {
  const Backend* const kBuiltin[] = {&cpu::CpuBackend(), &cuda::CudaBackend()};
  std::string known;
  for (const Backend* backend : kBuiltin) {
    if (backend->name() == device) return backend;
    absl::StrAppend(&known, known.empty() ? "" : ", ", std::string(backend->name()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown device '", std::string(device), "' (known: ", known, ")"));
}

absl::StatusOr<Executable> Compile(const Graph& graph, const CompileOptions& options) {
  if (options.external() || !options.backend_options.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the options name an external backend (backend=", options.backend,
        options.backend_options.empty() ? "" : " with backend_options", "): the harness runs "
        "it (docs/BACKENDS.md); the built-in compiler has no such backend"));
  }
  absl::StatusOr<const Backend*> backend = FindBackend(options.device);
  if (!backend.ok()) {
    // Bad options (faults, pass names) are reported before the device.
    if (absl::StatusOr<PassContext> context = PassContext::Create(options); !context.ok()) {
      return context.status();
    }
    return backend.status();
  }
  return (*backend)->Compile(graph, options);
}

}  // namespace rk::compiler
