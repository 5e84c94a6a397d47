#include "compiler/cuda/cuda_backend.h"

#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/stopwatch.h"
#include "base/subprocess.h"
#include "compiler/backend/lower_to_kernels.h"
#include "compiler/cuda/runtime/assembly_pipeline.h"
#include "compiler/cuda/runtime/cubin_builder.h"
#include "compiler/cuda/runtime/device_warm_up.h"
#include "compiler/cuda/runtime/ptx_assembler.h"

namespace rk::compiler::cuda {
namespace {

absl::Status WriteFile(const std::string& dir, const std::string& name, const std::string& text) {
  return WriteStringToFile(dir + "/" + name, text);
}

// cuobjdump's SASS listing of the cubin in `dir`, or "" without the tool.
std::string Sass(const std::string& dir) {
  if (FindOnPath("cuobjdump").empty()) return "";
  absl::StatusOr<SubprocessResult> run =
      RunSubprocess({"cuobjdump", "-sass", dir + "/kernels.cubin"});
  if (!run.ok()) return "";
  return run->stdout_text + run->stderr_text;
}

}  // namespace

std::string ResolveArch(const std::string& arch) {
  if (arch != "auto") return arch;
  // cuInit and the device's attributes only: the context is still being made
  // on the warm-up's thread (device_warm_up.h) while LLVM runs.
  absl::StatusOr<DeviceInfo> device = CudaDevice::Describe();
  if (!device.ok()) return "sm_90";  // PTX (dumps) without a GPU
  return NvptxArchFor(device->cc_major, device->cc_minor);
}

absl::StatusOr<std::unique_ptr<CudaProgram>> BuildCudaProgram(const kernel::Program& program,
                                                              const GpuOptions& options,
                                                              const std::string& dump_dir,
                                                              CudaTimings& timings,
                                                              DeviceWarmUp* warm_up) {
  const bool dump = !dump_dir.empty();
  // Each module's PTX goes to the assembler as soon as it exists, while the
  // others still compile (assembly_pipeline.h); dumps go through the driver.
  // Modules this process has loaded already need no cubin.
  std::optional<AssemblyPipeline> pipeline;
  GpuOptions gpu = options;
  if (!dump) {
    pipeline.emplace(AssemblyPipeline::SelectedAssemblerFn(), AssemblyPipeline::DeviceArchFn(),
                     DiskKernelCache::Global(), AssembleThreads(1 << 16));
    gpu.on_module = [&pipeline](int module, const std::string& text) {
      if (!CudaDevice::IsLoaded(text)) pipeline->Add(module, text);
    };
  }
  absl::StatusOr<PtxProgram> ptx = CompileToPtx(program, gpu, dump);
  if (!ptx.ok()) return ptx.status();
  // Modules compile on several threads: the wall time is split across the
  // phases in proportion to their summed thread time, so phases add up to it.
  const double thread_ms = ptx->emit_ms + ptx->optimize_ms + ptx->codegen_ms;
  const double scale = thread_ms > 0 ? ptx->wall_ms / thread_ms : 1.0;
  timings.llvm_ir_ms = ptx->emit_ms * scale;
  timings.optimize_ms = ptx->optimize_ms * scale;
  timings.disk_cached_modules = ptx->disk_cached_modules;
  timings.compile_threads = ptx->threads;
  if (dump) {
    for (const auto& [name, text] :
         {std::pair<const char*, const std::string*>{"llvm_before_opt.ll", &ptx->llvm_before_opt},
          {"llvm_after_opt.ll", &ptx->llvm_after_opt},
          {"kernels.ptx", &ptx->ptx}}) {
      if (absl::Status s = WriteFile(dump_dir, name, *text); !s.ok()) return s;
    }
    if (absl::Status s = WriteFile(dump_dir, "launches.txt", PrintLaunches(ptx->launches)); !s.ok()) {
      return s;
    }
    // Written before the driver loads the PTX, so a machine without a GPU
    // still gets the host side's phases.
    const std::string ptx_timings = absl::StrFormat(
        "llvm_ir_ms %.3f\noptimize_ms %.3f\nptx_codegen_ms %.3f\nptx_bytes %d\nmodules %d\n",
        ptx->emit_ms, ptx->optimize_ms, ptx->codegen_ms, ptx->ptx.size(), ptx->modules.size());
    if (absl::Status s = WriteFile(dump_dir, "ptx_timings.txt", ptx_timings); !s.ok()) return s;
  }
  const double ptx_ms = ptx->codegen_ms * scale;
  const auto start = std::chrono::steady_clock::now();
  // The context, made on its own thread while LLVM ran (device_warm_up.h):
  // the wait for what is left of it counts in codegen_ms, as the context's
  // creation inside CudaProgram::Load did before.
  if (warm_up != nullptr) {
    (void)warm_up->Wait();  // Load reports Get's status
    timings.context_ms = warm_up->context_ms();
    timings.context_wait_ms = warm_up->wait_ms();
  }
  absl::StatusOr<std::unique_ptr<CudaProgram>> loaded =
      CudaProgram::Load(program, *std::move(ptx), dump, pipeline ? &*pipeline : nullptr);
  timings.codegen_ms =
      ptx_ms + std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count();
  if (!loaded.ok()) return loaded.status();
  timings.load = (*loaded)->load_timings();
  if (dump && !(*loaded)->cubin().empty()) {
    if (absl::Status s = WriteFile(dump_dir, "kernels.cubin", (*loaded)->cubin()); !s.ok()) return s;
    const std::string sass = Sass(dump_dir);
    if (!sass.empty()) {
      if (absl::Status s = WriteFile(dump_dir, "kernels.sass", sass); !s.ok()) return s;
    }
  }
  return loaded;
}

namespace {

// The kernel program (which a CudaProgram points into) and its loaded form.
class DeviceExecutable final : public CompiledProgram {
 public:
  explicit DeviceExecutable(kernel::Program program) : program_(std::move(program)) {}

  absl::StatusOr<std::vector<HostTensor>> Run(
      absl::Span<const HostTensor> inputs) const override {
    return cuda_->Run(inputs);
  }

  const kernel::Program& program() const { return program_; }
  void set_cuda(std::unique_ptr<CudaProgram> cuda) { cuda_ = std::move(cuda); }
  const CudaProgram* cuda() const { return cuda_.get(); }

 private:
  kernel::Program program_;
  std::unique_ptr<CudaProgram> cuda_;
};

class Cuda final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }

  absl::StatusOr<Executable> Compile(const Graph& graph,
                                     const CompileOptions& options) const override {
    // The PTX assembler is found (and warmed up) while LLVM runs
    // (compiler/cuda/runtime/ptx_assembler.h); dumps go through the driver.
    if (options.dump_dir.empty()) PrepareAssemblerInBackground();
    struct WaitOnReturn {
      ~WaitOnReturn() { WaitForAssemblerPreparation(); }
    } wait_on_return;
    Stopwatch watch;
    absl::StatusOr<KernelLowering> lowered =
        LowerToKernels(graph, options, /*tiled_matmul=*/false, watch);
    if (!lowered.ok()) return lowered.status();
    // From here the compile goes on to load its modules, which needs the
    // process's CUDA context: it is made meanwhile (device_warm_up.h; joined
    // on every way out by its destructor).
    DeviceWarmUp warm_up;
    warm_up.Start();
    auto compiled = std::make_unique<DeviceExecutable>(std::move(lowered->program));
    GpuOptions gpu_options{ResolveArch(options.cuda_arch), options.fast_math,
                           options.low_precision, options.opt_level};
    gpu_options.tensor_cores = options.tensor_cores;
    gpu_options.tf32 = options.tf32;
    // Dumps show the whole program as one module; otherwise modules are kept
    // on disk for every later compile and process (ptx_compiler.h).
    if (options.dump_dir.empty()) gpu_options.disk_cache = DiskKernelCache::Global();
    CudaTimings t;
    absl::StatusOr<std::unique_ptr<CudaProgram>> cuda =
        BuildCudaProgram(compiled->program(), gpu_options, options.dump_dir, t, &warm_up);
    watch.Lap();
    PhaseTimings& timings = lowered->report.timings;
    timings.llvm_ir_ms = t.llvm_ir_ms;
    timings.optimize_ms = t.optimize_ms;
    timings.codegen_ms = t.codegen_ms;
    timings.jit_ms = t.codegen_ms;
    timings.disk_cached_kernels = t.disk_cached_modules;
    timings.compile_threads = t.compile_threads;
    timings.assembler = t.load.assembler;
    timings.assemble_ms = t.load.assemble_ms;
    timings.load_ms = t.load.load_ms;
    timings.assembler_note = t.load.note;
    timings.context_ms = t.context_ms;
    timings.context_wait_ms = t.context_wait_ms;
    if (!cuda.ok()) return cuda.status();
    compiled->set_cuda(*std::move(cuda));
    if (absl::Status s = WriteDump(options, "timings.json", timings.ToJson().DumpPretty()); !s.ok()) return s;
    std::vector<TensorType> input_types;
    for (NodeId id : graph.inputs()) input_types.push_back(graph.type(id));
    return Executable(std::move(input_types), std::move(compiled), std::move(lowered->report));
  }
};

}  // namespace

const Backend& CudaBackend() {
  static const Cuda* const backend = new Cuda();
  return *backend;
}

const CudaProgram* AsCudaProgram(const Executable& executable) {
  const auto* device = dynamic_cast<const DeviceExecutable*>(&executable.program());
  return device != nullptr ? device->cuda() : nullptr;
}

}  // namespace rk::compiler::cuda
