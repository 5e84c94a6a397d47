// Test helper: graph text -> optimized graph -> fusion -> kernel IR, the
// same phases Compile runs before a backend, so PTX can be checked without a
// GPU.
#ifndef REPROKIT_COMPILER_GPU_GPU_TEST_UTIL_H_
#define REPROKIT_COMPILER_GPU_GPU_TEST_UTIL_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/driver/compile_options.h"
#include "compiler/kernel/kernel_ir.h"

namespace rk::compiler::gpu {

absl::StatusOr<kernel::Program> LowerToKernelIr(const std::string& graph_text,
                                                const CompileOptions& options = {});

}  // namespace rk::compiler::gpu

#endif  // REPROKIT_COMPILER_GPU_GPU_TEST_UTIL_H_
