#include "compiler/cuda/runtime/cubin_builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/parallel_for.h"
#include "base/sha256.h"

namespace rk::compiler::cuda {
namespace {

// Bump when what a key covers changes meaning.
constexpr const char* kKeyVersion = "reprokit cubin 1";

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int AssembleThreads(int modules) {
  if (modules <= 0) return 0;
  if (const char* env = std::getenv("REPROKIT_COMPILE_THREADS"); env != nullptr && *env != 0) {
    const int threads = std::atoi(env);
    if (threads > 0) return std::min(threads, modules);
  }
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A process that shares the machine (a worker pool's worker) has its
  // compile threads limited (SetCompileThreadLimit): keep to its share.
  const int shared = CompileThreads(modules);
  if (shared < std::min({modules, hardware, 8})) return shared;
  return std::min(modules, hardware);
}

std::string CubinCacheKey(const PtxAssembler& assembler, std::string_view ptx,
                          const std::string& arch) {
  // Lengths first, so no two different field lists hash the same text.
  return Sha256Hex(absl::StrCat(kKeyVersion, "\n", assembler.identity().size(), ":",
                                assembler.identity(), "\n", assembler.options(), "\n", arch,
                                "\n", ptx.size(), ":", absl::string_view(ptx.data(), ptx.size())));
}

std::string ModuleName(std::string_view ptx, int index) {
  constexpr std::string_view kEntry = ".entry ";
  const size_t at = ptx.find(kEntry);
  if (at == std::string_view::npos) return absl::StrCat("module ", index);
  size_t end = at + kEntry.size();
  while (end < ptx.size() && ptx[end] != '(' && ptx[end] != ' ' && ptx[end] != '\n') ++end;
  return absl::StrCat("module ", index, " (",
                      std::string(ptx.substr(at + kEntry.size(), end - at - kEntry.size())), ")");
}

absl::StatusOr<std::vector<std::string>> BuildCubins(const PtxAssembler& assembler,
                                                     absl::Span<const std::string> ptx_modules,
                                                     const std::string& arch,
                                                     DiskKernelCache* cache, int threads,
                                                     CubinBuildStats* stats,
                                                     absl::Span<const int> module_numbers) {
  const auto start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(ptx_modules.size());
  std::vector<absl::StatusOr<std::string>> cubins(n, absl::UnknownError("not assembled"));
  std::atomic<int> hits{0}, assembled{0}, corrupt{0};
  std::atomic<int64_t> assemble_us{0};
  threads = std::max(1, std::min(threads, n));
  ParallelFor(n, threads, [&](int i) {
    const std::string& ptx = ptx_modules[i];
    const int number = i < static_cast<int>(module_numbers.size()) ? module_numbers[i] : i;
    std::string key;
    if (cache != nullptr) {
      key = CubinCacheKey(assembler, ptx, arch);
      if (std::optional<std::string> cached = cache->Load(key)) {
        if (LooksLikeCubin(*cached)) {
          hits.fetch_add(1);
          cubins[i] = *std::move(cached);
          return;
        }
        corrupt.fetch_add(1);
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    cubins[i] = assembler.Assemble(ptx, arch, ModuleName(ptx, number));
    assemble_us.fetch_add(static_cast<int64_t>(MsSince(t0) * 1000));
    assembled.fetch_add(1);
    if (!cubins[i].ok()) return;
    if (!LooksLikeCubin(*cubins[i])) {
      cubins[i] = absl::InternalError(absl::StrCat(assembler.name(), " made no CUDA ELF image of ",
                                                   ModuleName(ptx, number), " (",
                                                   cubins[i]->size(), " bytes)"));
      return;
    }
    if (cache != nullptr) cache->Store(key, *cubins[i]);
  });
  if (stats != nullptr) {
    stats->modules = n;
    stats->cache_hits = hits;
    stats->assembled = assembled;
    stats->corrupt = corrupt;
    stats->threads = threads;
    stats->assemble_thread_ms = assemble_us / 1000.0;
    stats->wall_ms = MsSince(start);
  }
  std::vector<std::string> out;
  out.reserve(n);
  for (absl::StatusOr<std::string>& cubin : cubins) {
    if (!cubin.ok()) return cubin.status();
    out.push_back(*std::move(cubin));
  }
  return out;
}

}  // namespace rk::compiler::cuda
