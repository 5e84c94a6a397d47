// The front end both built-in backends share: the graph pass pipeline, the
// compile-time faults of every op left in the optimized graph, fusion (each
// fusion decision a numbered optional application of "fuse") and kernel IR.
// The CPU and CUDA backends take the kernel program from here to their own
// code generation. With options.dump_dir set, fusion.txt and kernels.txt are
// written there (the pass manager dumps the graph around every pass).
//
// Tested by compiler/driver/compile_test.cc and compile_diff_test.cc.
#ifndef REPROKIT_COMPILER_BACKEND_LOWER_TO_KERNELS_H_
#define REPROKIT_COMPILER_BACKEND_LOWER_TO_KERNELS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/stopwatch.h"
#include "compiler/backend/executable.h"
#include "compiler/ir/graph.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/options/compile_options.h"

namespace rk::compiler {

struct KernelLowering {
  kernel::Program program;
  // The optimized graph, pass log, fusion groups, kernel count and the
  // passes, fusion and kernel IR timings; the backend adds its own phases.
  CompileReport report;
};

// `tiled_matmul`: matmul as cache-blocked tiles (the x86 form) instead of one
// accumulator row per output row (the form the NVPTX backend retiles).
// `watch` is lapped at each phase boundary.
absl::StatusOr<KernelLowering> LowerToKernels(const Graph& graph, const CompileOptions& options,
                                              bool tiled_matmul, Stopwatch& watch);

// Writes `text` to `<options.dump_dir>/<name>`; nothing without a dump_dir.
absl::Status WriteDump(const CompileOptions& options, const std::string& name,
                       const std::string& text);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_BACKEND_LOWER_TO_KERNELS_H_
