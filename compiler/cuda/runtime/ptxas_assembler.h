// The toolkit's ptxas as a PtxAssembler (ptx_assembler.h): one process per
// module (base/subprocess.h), `-arch=<arch> -O3` (AssemblerOptLevel), the PTX and the cubin in a
// temporary directory of their own, so modules assemble on as many threads
// as call it.
//
// Where: $REPROKIT_PTXAS when set (then only there), else $CUDA_PATH/bin,
// /usr/local/cuda/bin, PATH, then Python environments' wheels
// (nvidia/cu13/bin, nvidia/cuda_nvcc/bin, triton/backends/nvidia/bin).
//
// Tested by compiler/cuda/runtime/ptx_assembler_test.cc (skips without ptxas).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_PTXAS_ASSEMBLER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_PTXAS_ASSEMBLER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/cuda/runtime/ptx_assembler.h"

namespace rk::compiler::cuda {

// The ptxas to use (above), or "" when there is none. With $REPROKIT_PTXAS
// set, that path whether or not it exists (MakePtxasAssembler says why not).
std::string FindPtxas();

// An assembler running the ptxas at `path`; NotFound when `path` is empty,
// or is not a program that answers --version.
absl::StatusOr<std::unique_ptr<PtxAssembler>> MakePtxasAssembler(const std::string& path);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_PTXAS_ASSEMBLER_H_
