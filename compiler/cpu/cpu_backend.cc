#include "compiler/cpu/cpu_backend.h"

#include <memory>
#include <utility>
#include <vector>

#include "base/stopwatch.h"
#include "compiler/backend/lower_to_kernels.h"
#include "compiler/cpu/codegen/host_compiler.h"
#include "compiler/cpu/runtime/executor.h"

namespace rk::compiler::cpu {
namespace {

// The kernel program and its JIT-compiled kernels.
class HostExecutable final : public CompiledProgram {
 public:
  HostExecutable(kernel::Program program, HostProgram host)
      : program_(std::move(program)), host_(std::move(host)) {}

  absl::StatusOr<std::vector<HostTensor>> Run(
      absl::Span<const HostTensor> inputs) const override {
    return Execute(program_, host_.kernels, inputs);
  }

 private:
  kernel::Program program_;
  HostProgram host_;
};

class Cpu final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  absl::StatusOr<Executable> Compile(const Graph& graph,
                                     const CompileOptions& options) const override {
    Stopwatch watch;
    absl::StatusOr<KernelLowering> lowered =
        LowerToKernels(graph, options, /*tiled_matmul=*/true, watch);
    if (!lowered.ok()) return lowered.status();
    const bool dump = !options.dump_dir.empty();
    HostCompileOptions host_options;
    host_options.codegen = {options.fast_math, options.low_precision, options.vector_width,
                            options.threads};
    host_options.opt_level = options.opt_level;
    host_options.use_cache = !dump;  // dumps show every kernel's IR and assembly
    host_options.disk_cache = DiskKernelCache::Global();
    host_options.verify = options.checked;
    host_options.keep_text = dump;
    absl::StatusOr<HostProgram> host = CompileForHost(lowered->program, host_options);
    if (!host.ok()) return host.status();
    watch.Lap();
    PhaseTimings& timings = lowered->report.timings;
    timings.llvm_ir_ms = host->llvm_ir_ms;
    timings.optimize_ms = host->optimize_ms;
    timings.codegen_ms = host->codegen_ms;
    timings.link_ms = host->link_ms;
    timings.jit_ms = host->codegen_ms + host->link_ms;
    timings.cached_kernels = host->cached_kernels;
    timings.disk_cached_kernels = host->disk_cached_kernels;
    timings.compile_threads = host->threads;
    for (const HostKernelTiming& k : host->timings) {
      timings.kernels.push_back({k.name, k.source, k.emit_ms, k.optimize_ms, k.codegen_ms});
    }
    // Kernels compile on several threads: the phases before them plus this
    // backend's wall time, not the sum of its threads' times.
    timings.wall_ms = timings.passes_ms + timings.fusion_ms + timings.kernel_ir_ms + host->wall_ms;
    if (dump) {
      for (const auto& [name, text] : {std::pair<const char*, const std::string*>{
                                           "llvm_before_opt.ll", &host->ir_before},
                                       {"llvm_after_opt.ll", &host->ir_after},
                                       {"kernels.s", &host->assembly},
                                       {"timings.json", nullptr}}) {
        const std::string body = text != nullptr ? *text : timings.ToJson().DumpPretty();
        if (absl::Status s = WriteDump(options, name, body); !s.ok()) return s;
      }
    }
    std::vector<TensorType> input_types;
    for (NodeId id : graph.inputs()) input_types.push_back(graph.type(id));
    return Executable(std::move(input_types),
                      std::make_unique<HostExecutable>(std::move(lowered->program),
                                                       *std::move(host)),
                      std::move(lowered->report));
  }
};

}  // namespace

const Backend& CpuBackend() {
  static const Cpu* const backend = new Cpu();
  return *backend;
}

}  // namespace rk::compiler::cpu
