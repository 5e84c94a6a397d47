// Compile: the compiler's entry point. Picks the backend that
// CompileOptions::device names (compiler/cpu: x86 through LLVM's ORC JIT;
// compiler/cuda: NVPTX through the CUDA driver, Unavailable without one) and
// returns its Executable. docs/COMPILER.md describes every phase; the
// Backend interface (compiler/backend/backend.h) is the seam other
// compilers plug into.
//
// Tested by compiler/driver/compile_test.cc and compile_diff_test.cc.
#ifndef REPROKIT_COMPILER_DRIVER_COMPILE_H_
#define REPROKIT_COMPILER_DRIVER_COMPILE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/backend/backend.h"
#include "compiler/backend/executable.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"

namespace rk::compiler {

// The built-in backend for `device` ("cpu", "cuda"); InvalidArgument naming
// the device and listing the known ones otherwise.
absl::StatusOr<const Backend*> FindBackend(std::string_view device);

// FindBackend(options.device)->Compile(graph, options).
absl::StatusOr<Executable> Compile(const Graph& graph, const CompileOptions& options);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_DRIVER_COMPILE_H_
