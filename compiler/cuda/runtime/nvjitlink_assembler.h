// libnvJitLink as a PtxAssembler (ptx_assembler.h): loaded at run time with
// dlopen (no link against the toolkit, so the static binary runs where it is
// absent), PTX compiled to a cubin in process with `-arch=<arch> -O3`
// (AssemblerOptLevel), one
// handle per call, so modules assemble on several threads at once.
//
// Where: $REPROKIT_NVJITLINK when set (a library path; then only there, "off"
// for none), else the loader's search (libnvJitLink.so.13, .12, .so), the
// toolkit ($CUDA_PATH, /usr/local/cuda: lib64/, lib/), then the nvidia wheels
// of Python environments (nvidia/nvjitlink/lib, nvidia/cu13/lib,
// nvidia/cu12/lib: PythonPackageFiles, ptx_assembler.h).
//
// Tested by compiler/cuda/runtime/ptx_assembler_test.cc (skips without the
// library).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_NVJITLINK_ASSEMBLER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_NVJITLINK_ASSEMBLER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cuda/runtime/ptx_assembler.h"

namespace rk::compiler::cuda {

// The paths or sonames tried, in order (globs expanded).
std::vector<std::string> NvJitLinkCandidates();

// The first candidate that loads and has every entry point used; NotFound
// naming what was tried otherwise. The library stays loaded for the process.
absl::StatusOr<std::unique_ptr<PtxAssembler>> MakeNvJitLinkAssembler();

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_NVJITLINK_ASSEMBLER_H_
