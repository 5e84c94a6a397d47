// The cubins of a program's PTX modules: each looked up in the on-disk
// kernel cache (compiler/support/disk_kernel_cache.h, the directory and
// switch the PTX modules use: $REPROKIT_KERNEL_CACHE), else assembled by a
// PtxAssembler (ptx_assembler.h) and stored; modules on several threads.
//
// Key: SHA-256 of the PTX text, the arch, the assembler's identity (tool,
// path, version) and options. An entry that fails the cache's checksum, or
// is not a CUDA ELF image, is counted corrupt and assembled again (the new
// cubin replaces it); a cache that cannot be written is no error.
//
// Tested by compiler/cuda/runtime/ptx_assembler_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_CUBIN_BUILDER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_CUBIN_BUILDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/cuda/runtime/ptx_assembler.h"
#include "compiler/support/disk_kernel_cache.h"

namespace rk::compiler::cuda {

struct CubinBuildStats {
  int modules = 0;
  int cache_hits = 0;
  int assembled = 0;
  int corrupt = 0;  // cache entries that were not cubins (assembled again)
  int threads = 1;
  double wall_ms = 0;            // the whole build
  double assemble_thread_ms = 0;  // summed over the modules assembled
};

// Threads for assembling `modules` modules: $REPROKIT_COMPILE_THREADS when
// set, else one a module up to the machine's hardware threads (assemblers
// run one module on one thread; unlike LLVM's compiles they are not capped
// at 8), or the process's share when SetCompileThreadLimit limits it
// (base/parallel_for.h).
int AssembleThreads(int modules);

std::string CubinCacheKey(const PtxAssembler& assembler, std::string_view ptx,
                          const std::string& arch);

// "module 3 (rk_k0)": the module's index and its first entry, for errors.
std::string ModuleName(std::string_view ptx, int index);

// The cubin of each of `ptx_modules`, in order, for `arch`. `cache` may be
// null (no cache). The first error in module order is returned; it names
// the module by its index in `ptx_modules`, or by `module_numbers[i]` when
// given (the program's numbering when only some of its modules are built).
absl::StatusOr<std::vector<std::string>> BuildCubins(const PtxAssembler& assembler,
                                                     absl::Span<const std::string> ptx_modules,
                                                     const std::string& arch,
                                                     DiskKernelCache* cache, int threads,
                                                     CubinBuildStats* stats = nullptr,
                                                     absl::Span<const int> module_numbers = {});

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_CUBIN_BUILDER_H_
