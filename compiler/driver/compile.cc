#include "compiler/driver/compile.h"

#include <chrono>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/codegen/host_compiler.h"
#include "compiler/fusion/fusion.h"
#include "compiler/gpu/cuda_backend.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/runtime/executor.h"
#include "compiler/support/stopwatch.h"

namespace rk::compiler {

struct Executable::Impl {
  Graph graph;
  std::vector<TensorType> input_types;
  kernel::Program program;
  codegen::HostProgram host;
  std::unique_ptr<gpu::CudaProgram> cuda;  // device=cuda
  std::vector<PassApplication> log;
  int64_t requested = 0;
  std::vector<FusionGroupSummary> groups;
  PhaseTimings timings;
};

namespace {

absl::Status WriteDump(const CompileOptions& options, const std::string& name,
                       const std::string& text) {
  if (options.dump_dir.empty()) return absl::OkStatus();
  const std::string path = options.dump_dir + "/" + name;
  std::ofstream out(path);
  out << text;
  if (!out) return absl::InternalError(absl::StrCat("cannot write dump ", path));
  return absl::OkStatus();
}

absl::Status FireOpFaults(const Graph& graph, const FaultSet& faults) {
  if (faults.empty()) return absl::OkStatus();
  std::set<std::string> seen;
  for (const Node& node : graph.nodes()) {
    const std::string name(std::string(OpName(node.op)));
    if (!seen.insert(name).second) continue;
    if (absl::Status s = faults.FireCompileTimeFaults(name); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// device=cuda after kernel IR: PTX, GPU dumps, module load (cuda_backend.h).
absl::Status LowerForCuda(Executable::Impl& impl, const CompileOptions& options,
                          Stopwatch& watch) {
  const gpu::GpuOptions gpu_options{options.cuda_arch, options.fast_math, options.low_precision,
                                    options.opt_level};
  gpu::CudaTimings t;
  absl::StatusOr<std::unique_ptr<gpu::CudaProgram>> cuda =
      gpu::BuildCudaProgram(impl.program, gpu_options, options.dump_dir, t);
  watch.Lap();
  impl.timings.llvm_ir_ms = t.llvm_ir_ms;
  impl.timings.optimize_ms = t.optimize_ms;
  impl.timings.codegen_ms = t.codegen_ms;
  impl.timings.jit_ms = t.codegen_ms;
  if (!cuda.ok()) return cuda.status();
  impl.cuda = *std::move(cuda);
  return WriteDump(options, "timings.json", impl.timings.ToJson());
}

// Fusion, kernel IR, LLVM IR, O2 and JIT for an optimized graph.
absl::Status Lower(Executable::Impl& impl, PassContext& context, const CompileOptions& options,
                   Stopwatch& watch) {
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(impl.graph, context);
  if (!plan.ok()) return plan.status();
  static constexpr const char* kKinds[] = {"elementwise", "reduction", "matmul", "concat"};
  for (const fusion::FusionGroup& g : plan->groups) {
    impl.groups.push_back({kKinds[static_cast<int>(g.kind)], g.detail});
  }
  impl.timings.fusion_ms = watch.Lap();
  kernel::KernelOptions kernel_options{options.fast_math, options.low_precision, options.threads,
                                       &context.faults()};
  kernel_options.tiled_matmul = options.device == "cpu";
  if (options.reduce_order == ReduceOrder::kTree) {
    kernel_options.reduce_order = kernel::AccumulationOrder::kTree;
  }
  absl::StatusOr<kernel::Program> program = kernel::BuildProgram(impl.graph, *plan, kernel_options);
  if (!program.ok()) return program.status();
  impl.program = *std::move(program);
  impl.timings.kernel_ir_ms = watch.Lap();

  const bool dump = !options.dump_dir.empty();
  if (dump) {
    if (absl::Status s = WriteDump(options, "fusion.txt", fusion::PrintFusionPlan(impl.graph, *plan)); !s.ok()) return s;
    if (absl::Status s = WriteDump(options, "kernels.txt", kernel::PrintProgram(impl.program)); !s.ok()) return s;
    watch.Lap();
  }
  if (options.device == "cuda") return LowerForCuda(impl, options, watch);
  codegen::HostCompileOptions host_options;
  host_options.codegen = {options.fast_math, options.low_precision, options.vector_width,
                          options.threads};
  host_options.opt_level = options.opt_level;
  host_options.use_cache = !dump;  // dumps show every kernel's IR and assembly
  host_options.verify = options.checked;
  host_options.keep_text = dump;
  absl::StatusOr<codegen::HostProgram> host = codegen::CompileForHost(impl.program, host_options);
  if (!host.ok()) return host.status();
  impl.host = *std::move(host);
  watch.Lap();
  impl.timings.llvm_ir_ms = impl.host.llvm_ir_ms;
  impl.timings.optimize_ms = impl.host.optimize_ms;
  impl.timings.codegen_ms = impl.host.codegen_ms;
  impl.timings.link_ms = impl.host.link_ms;
  impl.timings.jit_ms = impl.host.codegen_ms + impl.host.link_ms;
  impl.timings.cached_kernels = impl.host.cached_kernels;
  if (dump) {
    if (absl::Status s = WriteDump(options, "llvm_before_opt.ll", impl.host.ir_before); !s.ok()) return s;
    if (absl::Status s = WriteDump(options, "llvm_after_opt.ll", impl.host.ir_after); !s.ok()) return s;
    if (absl::Status s = WriteDump(options, "kernels.s", impl.host.assembly); !s.ok()) return s;
  }
  if (dump) return WriteDump(options, "timings.json", impl.timings.ToJson());
  return absl::OkStatus();
}

}  // namespace

std::string PhaseTimings::ToJson() const {
  return absl::StrFormat(
      "{\"passes_ms\": %.3f, \"fusion_ms\": %.3f, \"kernel_ir_ms\": %.3f, \"llvm_ir_ms\": %.3f, "
      "\"optimize_ms\": %.3f, \"jit_ms\": %.3f, \"codegen_ms\": %.3f, \"link_ms\": %.3f, "
      "\"cached_kernels\": %d, \"total_ms\": %.3f}",
      passes_ms, fusion_ms, kernel_ir_ms, llvm_ir_ms, optimize_ms, jit_ms, codegen_ms, link_ms,
      cached_kernels, total_ms());
}

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::Executable(Executable&&) noexcept = default;
Executable& Executable::operator=(Executable&&) noexcept = default;
Executable::~Executable() = default;

absl::StatusOr<std::vector<HostTensor>> Executable::Run(
    absl::Span<const HostTensor> inputs) const {
  if (impl_->cuda != nullptr) return impl_->cuda->Run(impl_->input_types, inputs);
  return runtime::Execute(impl_->program, impl_->host.kernels, impl_->input_types, inputs);
}

const std::vector<PassApplication>& Executable::pass_log() const { return impl_->log; }
int64_t Executable::requested_applications() const { return impl_->requested; }
const std::vector<FusionGroupSummary>& Executable::fusion_groups() const { return impl_->groups; }
const PhaseTimings& Executable::timings() const { return impl_->timings; }
const Graph& Executable::optimized_graph() const { return impl_->graph; }
const gpu::CudaProgram* Executable::cuda_program() const { return impl_->cuda.get(); }
int Executable::num_kernels() const { return static_cast<int>(impl_->program.kernels.size()); }

absl::StatusOr<Executable> Compile(const Graph& graph, const CompileOptions& options) {
  Stopwatch watch;
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  if (!context.ok()) return context.status();
  if (options.device != "cpu" && options.device != "cuda") {
    return absl::InvalidArgumentError(absl::StrCat("unknown device '", options.device, "'"));
  }
  auto impl = std::make_unique<Executable::Impl>();
  for (NodeId id : graph.inputs()) impl->input_types.push_back(graph.type(id));
  absl::StatusOr<Graph> optimized = RunGraphPipeline(graph, *context);
  if (!optimized.ok()) return optimized.status();
  impl->graph = *std::move(optimized);
  if (absl::Status s = FireOpFaults(impl->graph, context->faults()); !s.ok()) return s;
  impl->timings.passes_ms = watch.Lap();
  if (absl::Status s = Lower(*impl, *context, options, watch); !s.ok()) return s;
  impl->log = context->log();
  impl->requested = context->requested();
  return Executable(std::move(impl));
}

}  // namespace rk::compiler
