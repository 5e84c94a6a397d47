#include "compiler/cuda/runtime/module_loader.h"

#include <atomic>
#include <chrono>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/parallel_for.h"
#include "compiler/cuda/runtime/cubin_builder.h"
#include "compiler/cuda/runtime/ptx_assembler.h"
#include "compiler/support/disk_kernel_cache.h"

namespace rk::compiler::cuda {
namespace {

using Loaded = absl::StatusOr<std::shared_ptr<CudaModule>>;

// Set when the driver refused every cubin of a program (an assembler newer
// than the driver): later programs of the process go to the driver's JIT
// without assembling first.
std::atomic<bool> driver_refuses_cubins{false};

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The driver compiles and loads every module (CompileThreads at once, as
// the PTX compiled).
void LoadByDriver(CudaDevice& device, const std::vector<std::string>& ptx, bool keep_cubin,
                  std::vector<Loaded>& loaded, ModuleLoadTimings& timings) {
  const auto start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(ptx.size());
  timings.threads = std::max(1, CompileThreads(n));
  ParallelFor(n, timings.threads, [&](int i) { loaded[i] = device.LoadPtx(ptx[i], keep_cubin); });
  timings.assemble_ms = MsSince(start);
}

// The cubins of the modules not loaded yet, by arch (one in practice); those
// `pipelined` holds for the right arch are taken from there.
absl::Status Assemble(const PtxAssembler& assembler, const DeviceInfo& info,
                      const std::vector<std::string>& ptx, const std::vector<int>& todo,
                      std::map<int, PipelinedCubin>& pipelined, std::vector<std::string>& cubins,
                      ModuleLoadTimings& timings) {
  std::map<std::string, std::vector<int>> by_arch;
  for (int i : todo) {
    const std::string arch = AssemblyArch(ptx[i], info.cc_major, info.cc_minor);
    auto made = pipelined.find(i);
    if (made != pipelined.end() && made->second.arch == arch) {
      cubins[i] = std::move(made->second.cubin);
      ++timings.pipelined;
      continue;
    }
    by_arch[arch].push_back(i);
  }
  for (const auto& [arch, modules] : by_arch) {
    std::vector<std::string> texts;
    for (int i : modules) texts.push_back(ptx[i]);
    CubinBuildStats stats;
    absl::StatusOr<std::vector<std::string>> built =
        BuildCubins(assembler, texts, arch, DiskKernelCache::Global(),
                    AssembleThreads(static_cast<int>(texts.size())), &stats, modules);
    if (!built.ok()) return built.status();
    for (size_t k = 0; k < modules.size(); ++k) cubins[modules[k]] = std::move((*built)[k]);
    timings.cubin_cache_hits += stats.cache_hits;
    timings.assembled += stats.assembled;
    timings.threads = std::max(timings.threads, stats.threads);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::shared_ptr<CudaModule>>> LoadModules(
    CudaDevice& device, const std::vector<std::string>& ptx, bool keep_cubin,
    ModuleLoadTimings& timings, AssemblyPipeline* pipeline) {
  const int n = static_cast<int>(ptx.size());
  const AssemblerChoice& choice = SelectedAssembler();
  timings = ModuleLoadTimings();
  timings.modules = n;
  timings.assembler = keep_cubin ? "driver" : choice.name();
  timings.note = keep_cubin ? "" : choice.note;
  std::vector<Loaded> loaded(n, absl::UnknownError("not loaded"));
  if (keep_cubin || choice.assembler == nullptr || driver_refuses_cubins) {
    if (driver_refuses_cubins && !keep_cubin && choice.assembler != nullptr) {
      timings.assembler = "driver";
      absl::StrAppend(&timings.note, timings.note.empty() ? "" : "; ", "the driver refused ",
                      choice.name(), "'s cubins earlier in this process");
    }
    LoadByDriver(device, ptx, keep_cubin, loaded, timings);
  } else {
    std::vector<int> todo;
    for (int i = 0; i < n; ++i) {
      if (std::shared_ptr<CudaModule> module = device.FindLoaded(ptx[i])) {
        loaded[i] = std::move(module);
        ++timings.already_loaded;
      } else {
        todo.push_back(i);
      }
    }
    std::vector<std::string> cubins(n);
    const auto start = std::chrono::steady_clock::now();
    PipelineResult made;
    if (pipeline != nullptr) {
      made = pipeline->Finish();
      timings.cubin_cache_hits += made.cache_hits;
      timings.assembled += made.assembled;
      timings.threads = std::max(timings.threads, made.threads);
    }
    if (absl::Status s =
            Assemble(*choice.assembler, device.info(), ptx, todo, made.cubins, cubins, timings);
        !s.ok()) {
      return s;
    }
    timings.assemble_ms = MsSince(start);
    const auto load_start = std::chrono::steady_clock::now();
    std::vector<absl::Status> refused(todo.size());
    ParallelFor(static_cast<int>(todo.size()), timings.threads, [&](int k) {
      const int i = todo[k];
      loaded[i] = device.LoadCubin(ptx[i], cubins[i]);
      if (loaded[i].ok()) return;
      refused[k] = loaded[i].status();
      loaded[i] = device.LoadPtx(ptx[i]);
    });
    timings.load_ms = MsSince(load_start);
    int refusals = 0;
    for (const absl::Status& s : refused) refusals += !s.ok();
    if (refusals > 0 && refusals == static_cast<int>(todo.size())) driver_refuses_cubins = true;
    for (size_t k = 0; k < refused.size(); ++k) {
      if (refused[k].ok()) continue;
      if (timings.driver_fallbacks++ == 0) {
        absl::StrAppend(&timings.note, timings.note.empty() ? "" : "; ", "the driver refused the ",
                        choice.name(), " cubin of ", ModuleName(ptx[todo[k]], todo[k]), " (",
                        refused[k].message(), "): loaded from PTX");
      }
    }
  }
  if (timings.driver_fallbacks > 0) timings.assembler += "+driver";
  std::vector<std::shared_ptr<CudaModule>> modules;
  modules.reserve(n);
  for (Loaded& module : loaded) {
    if (!module.ok()) return module.status();
    modules.push_back(*std::move(module));
  }
  return modules;
}

}  // namespace rk::compiler::cuda
