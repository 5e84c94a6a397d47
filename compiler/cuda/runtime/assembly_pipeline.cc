#include "compiler/cuda/runtime/assembly_pipeline.h"

#include <algorithm>

#include "compiler/cuda/runtime/cubin_builder.h"
#include "compiler/cuda/runtime/cuda_driver.h"

namespace rk::compiler::cuda {

AssemblyPipeline::AssemblyPipeline(AssemblerFn assembler, ArchFn arch, DiskKernelCache* cache,
                                   int max_threads)
    : assembler_(std::move(assembler)),
      arch_(std::move(arch)),
      cache_(cache),
      max_threads_(std::max(1, max_threads)) {}

AssemblyPipeline::~AssemblyPipeline() { Stop(/*drop_queued=*/true); }

void AssemblyPipeline::Add(int module, std::string ptx) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  // A text seen before (the same kernel twice in a program) is assembled once.
  auto [same, first] = modules_of_text_.try_emplace(ptx);
  same->second.push_back(module);
  if (!first) return;
  queue_.emplace_back(module, std::move(ptx));
  // A thread for it unless one is free, up to max_threads_.
  if (idle_ == 0 && static_cast<int>(threads_.size()) < max_threads_) {
    threads_.emplace_back([this] { Work(); });
  } else {
    cv_.notify_one();
  }
}

void AssemblyPipeline::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++idle_;
    cv_.wait(lock, [this] { return closed_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // closed and drained
    auto [module, ptx] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    PipelinedCubin made;
    CubinBuildStats stats;
    bool ok = false;
    if (const PtxAssembler* assembler = assembler_()) {
      absl::StatusOr<std::string> arch = arch_(ptx);
      if (arch.ok()) {
        const int number[] = {module};
        absl::StatusOr<std::vector<std::string>> built =
            BuildCubins(*assembler, absl::MakeConstSpan(&ptx, 1), *arch, cache_, 1, &stats,
                        number);
        if (built.ok()) {
          made = {*arch, std::move(built->front())};
          ok = true;
        }
      }
    }
    lock.lock();
    result_.cache_hits += stats.cache_hits;
    result_.assembled += stats.assembled;
    if (ok) result_.cubins[module] = std::move(made);
  }
}

void AssemblyPipeline::Stop(bool drop_queued) {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (drop_queued) queue_.clear();
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (std::thread& t : threads) t.join();
}

PipelineResult AssemblyPipeline::Finish() {
  int threads = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads = static_cast<int>(threads_.size());
  }
  Stop(/*drop_queued=*/false);
  std::lock_guard<std::mutex> lock(mu_);
  PipelineResult out = std::move(result_);
  result_ = PipelineResult();
  out.threads = threads;
  for (const auto& [text, modules] : modules_of_text_) {
    auto made = out.cubins.find(modules.front());
    if (made == out.cubins.end()) continue;
    for (size_t k = 1; k < modules.size(); ++k) out.cubins[modules[k]] = made->second;
  }
  modules_of_text_.clear();
  return out;
}

AssemblyPipeline::AssemblerFn AssemblyPipeline::SelectedAssemblerFn() {
  return []() -> const PtxAssembler* { return SelectedAssembler().assembler.get(); };
}

std::string PtxTargetArch(std::string_view ptx) {
  constexpr std::string_view kTarget = ".target sm_";
  const size_t at = ptx.find(kTarget);
  int number = 0;
  for (size_t i = at == std::string_view::npos ? ptx.size() : at + kTarget.size();
       i < ptx.size() && ptx[i] >= '0' && ptx[i] <= '9'; ++i) {
    number = number * 10 + (ptx[i] - '0');
  }
  return AssemblyArch(ptx, number / 10, number % 10);
}

AssemblyPipeline::ArchFn AssemblyPipeline::DeviceArchFn() {
  return [](std::string_view ptx) -> absl::StatusOr<std::string> {
    std::optional<absl::StatusOr<DeviceInfo>> info = CudaDevice::DescribeIfKnown();
    if (!info.has_value()) return PtxTargetArch(ptx);  // cuInit still running: guess
    if (!info->ok()) return info->status();
    return AssemblyArch(ptx, (*info)->cc_major, (*info)->cc_minor);
  };
}

}  // namespace rk::compiler::cuda
