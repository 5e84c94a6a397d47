// AssemblyPipeline: a program's PTX modules assembled to cubins as soon as
// LLVM has printed each one (GpuOptions::on_module, ptx_compiler.h), on
// threads of its own, while the program's other modules still go through
// LLVM; module_loader.h takes the cubins made (LoadModules' `pipeline`) and
// assembles only what is missing. So a cold GPU compile's PTX->SASS overlaps
// its LLVM part instead of following it (docs/GPU.md, "Cold compile").
//
// A module is assembled for the arch `arch` gives by the assembler
// `assembler` gives (null: the driver's JIT, nothing to do here), through
// BuildCubins (cubin_builder.h) and its disk cache. On a GPU (DeviceArchFn)
// the arch is the device's (CudaDevice::DescribeIfKnown) or, while cuInit
// still runs on the context's thread, the PTX's own target (PtxTargetArch:
// sm_90 PTX on an sm_90 device, the default case) instead of waiting for it;
// without a GPU nothing is assembled. The loader uses a cubin only when its
// arch is the one the device needs, so a wrong guess costs only its work. A
// module that fails here is simply not in the result: the loader assembles
// it again and reports the error as before. The destructor drops what is queued and
// joins the threads, so none outlives the pipeline's owner on any way out.
//
// Tested by compiler/cuda/runtime/assembly_pipeline_test.cc (a stand-in
// assembler, and ptxas where the toolkit is present; no GPU needed).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_ASSEMBLY_PIPELINE_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_ASSEMBLY_PIPELINE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/cuda/runtime/ptx_assembler.h"
#include "compiler/support/disk_kernel_cache.h"

namespace rk::compiler::cuda {

struct PipelinedCubin {
  std::string arch;  // what it was assembled for
  std::string cubin;
};

// The arch a device of the PTX's own target would assemble it for: sm_90
// for `.target sm_90`, sm_90a for `.target sm_90a`.
std::string PtxTargetArch(std::string_view ptx);

struct PipelineResult {
  std::map<int, PipelinedCubin> cubins;  // by module index
  int cache_hits = 0;  // cubins read from the disk cache
  int assembled = 0;   // cubins assembled
  int threads = 0;     // threads the pipeline ran
};

class AssemblyPipeline {
 public:
  // Null: no assembler (the driver's JIT loads the PTX), nothing is made.
  using AssemblerFn = std::function<const PtxAssembler*()>;
  // The arch to assemble `ptx` for, or why there is none (no GPU).
  using ArchFn = std::function<absl::StatusOr<std::string>(std::string_view ptx)>;

  // `cache` may be null; `max_threads` >= 1.
  AssemblyPipeline(AssemblerFn assembler, ArchFn arch, DiskKernelCache* cache, int max_threads);
  ~AssemblyPipeline();
  AssemblyPipeline(const AssemblyPipeline&) = delete;
  AssemblyPipeline& operator=(const AssemblyPipeline&) = delete;

  // Queues module `module`; safe from several threads. Ignored after Finish.
  // A text added before is not assembled again: its cubin serves both.
  void Add(int module, std::string ptx);
  // Waits for every module added, joins the threads; the cubins made. Later
  // calls return an empty result.
  PipelineResult Finish();

  // The production resolvers: SelectedAssembler (ptx_assembler.h), and
  // AssemblyArch of the device's compute capability, or the guess above.
  static AssemblerFn SelectedAssemblerFn();
  static ArchFn DeviceArchFn();

 private:
  void Work();
  void Stop(bool drop_queued);

  const AssemblerFn assembler_;
  const ArchFn arch_;
  DiskKernelCache* const cache_;
  const int max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<int, std::string>> queue_;
  // Every text added, with its modules (the first is the one assembled).
  std::map<std::string, std::vector<int>> modules_of_text_;
  std::vector<std::thread> threads_;
  int idle_ = 0;
  bool closed_ = false;
  PipelineResult result_;
};

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_ASSEMBLY_PIPELINE_H_
