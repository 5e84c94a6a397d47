// Test helpers: graph text -> optimized graph -> fusion -> kernel IR, the
// same phases Compile runs before a backend, then PTX, so generated code can
// be checked without a GPU.
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_PTX_TEST_UTIL_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_PTX_TEST_UTIL_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/kernel/kernel_ir.h"
#include "compiler/options/compile_options.h"

namespace rk::compiler::cuda {

absl::StatusOr<kernel::Program> LowerToKernelIr(const std::string& graph_text,
                                                const CompileOptions& options = {});

// The PTX of graph_text; a failure, or an unresolved (.extern .func) call in the
// module, fails the calling test and returns an empty program.
// options.fast_math, low_precision, tensor_cores and tf32 carry over to the
// GPU options.
PtxProgram Ptx(const std::string& graph_text, const CompileOptions& options = {},
               GpuOptions gpu = {});

// "graph @g(%x: type) { %y = op(%x) : type ... }"
std::string Unary(const std::string& op, const std::string& type);

// Occurrences of `what` in `text`.
int Count(const std::string& text, const std::string& what);

// The PTX of entry `name`, from its `.entry` line to its closing brace
// (empty when there is none).
std::string EntryText(const std::string& ptx, const std::string& name);

// Sets an environment variable for its scope (unsets it for a null value):
// the CUDA backend's switches that are read from the environment. Restores
// the old value at the scope's end.
class EnvOverride {
 public:
  EnvOverride(const char* name, const char* value);
  ~EnvOverride();
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// What ptxas says of `module` assembled for `arch` ("" when it assembles);
// nullopt when there is no ptxas ($CUDA_PATH/bin, else /usr/local/cuda/bin).
std::optional<std::string> PtxasErrors(const std::string& module, const std::string& arch);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_PTX_TEST_UTIL_H_
