// A program's PTX modules into the driver: each assembled to a cubin off the
// driver on several threads (SelectedAssembler, ptx_assembler.h; cubins
// cached on disk, cubin_builder.h) and loaded, or, with the driver's JIT
// chosen or no assembler found, compiled and loaded by the driver
// (CudaDevice::LoadPtx) on several threads as before. Modules this process
// has loaded already are reused. A cubin the driver refuses (an assembler
// newer than the driver) is loaded from its PTX by the driver's JIT instead,
// counted and noted, so the program loads whenever the driver alone would
// load it; when the driver refuses every cubin of a program, the rest of the
// process uses the driver's JIT.
//
// Tested on a GPU by compiler/tests/cuda_program_test.cc (every GPU program
// test goes through here) and without one, for its parts, by
// compiler/cuda/runtime/ptx_assembler_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_MODULE_LOADER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_MODULE_LOADER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cuda/runtime/assembly_pipeline.h"
#include "compiler/cuda/runtime/cuda_driver.h"

namespace rk::compiler::cuda {

// Where a program's machine code came from and what it cost (for timings
// and benches).
struct ModuleLoadTimings {
  // "nvjitlink", "ptxas" or "driver"; "+driver" added when the driver
  // refused some of the cubins (driver_fallbacks).
  std::string assembler;
  std::string note;       // why not the assembler asked for, a refused cubin; "" when none
  int modules = 0;
  int already_loaded = 0;    // reused from earlier loads in this process
  int cubin_cache_hits = 0;  // cubins read from the disk cache
  int assembled = 0;         // cubins assembled now
  int pipelined = 0;         // cubins of the above made while LLVM ran (assembly_pipeline.h)
  int driver_fallbacks = 0;  // cubins the driver refused, JIT-compiled from PTX instead
  int threads = 1;
  // Wall milliseconds: PTX -> cubin (cache lookups included); with the
  // driver's JIT, its compile and load together.
  double assemble_ms = 0;
  double load_ms = 0;  // cubins into the driver
};

// The loaded module of each of `ptx` (in order). With keep_cubin, one
// module through the driver's linker, which keeps the cubin (dumps).
// `pipeline`, when given, has been assembling the modules while they
// compiled (assembly_pipeline.h): its cubins are used where they are for the
// arch needed, the rest assembled here; the wait for it counts in
// assemble_ms.
absl::StatusOr<std::vector<std::shared_ptr<CudaModule>>> LoadModules(
    CudaDevice& device, const std::vector<std::string>& ptx, bool keep_cubin,
    ModuleLoadTimings& timings, AssemblyPipeline* pipeline = nullptr);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_MODULE_LOADER_H_
