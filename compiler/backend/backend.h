// Backend: the seam between the compile driver and a code generator. A
// backend turns a graph and its options into an Executable; the driver
// (compiler/driver/compile.h) picks one by CompileOptions::device. The
// built-in backends are compiler/cpu (x86, LLVM ORC JIT) and compiler/cuda
// (NVPTX, the CUDA driver); both run the shared front end first
// (lower_to_kernels.h). An external compiler plugs in by implementing this
// interface: it needs nothing but the graph, the options and the Executable
// it returns. docs/COMPILER.md ("Backends") describes the contract.
//
// Contract: Compile is thread-safe; a graph the backend cannot handle is
// Unimplemented (op or dtype) or Unavailable (no device here); bad options
// are InvalidArgument; planted faults (options.faults) fire as
// compiler/options/faults.h says.
//
// Tested by compiler/driver/compile_test.cc.
#ifndef REPROKIT_COMPILER_BACKEND_BACKEND_H_
#define REPROKIT_COMPILER_BACKEND_BACKEND_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/backend/executable.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"

namespace rk::compiler {

class Backend {
 public:
  virtual ~Backend() = default;
  // The device= value that selects this backend, e.g. "cpu".
  virtual std::string_view name() const = 0;
  virtual absl::StatusOr<Executable> Compile(const Graph& graph,
                                             const CompileOptions& options) const = 0;
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_BACKEND_BACKEND_H_
