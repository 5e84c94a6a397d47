#include "compiler/gpu/cuda_backend.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace rk::compiler::gpu {
namespace {

absl::Status WriteFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return absl::InternalError(absl::StrCat("cannot write dump ", path));
  return absl::OkStatus();
}

bool OnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    const std::string candidate = absl::StrCat(dir, "/", tool);
    if (std::ifstream(candidate).good()) return true;
  }
  return false;
}

// cuobjdump's SASS listing of the cubin in `dir`, or "" without the tool.
std::string Sass(const std::string& dir) {
  if (!OnPath("cuobjdump")) return "";
  const std::string command = absl::StrCat("cuobjdump -sass '", dir, "/kernels.cubin' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, n);
  pclose(pipe);
  return text;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaProgram>> BuildCudaProgram(const kernel::Program& program,
                                                              const GpuOptions& options,
                                                              const std::string& dump_dir,
                                                              CudaTimings& timings) {
  const bool dump = !dump_dir.empty();
  absl::StatusOr<PtxProgram> ptx = CompileToPtx(program, options, dump);
  if (!ptx.ok()) return ptx.status();
  // Modules compile on several threads: the wall time is split across the
  // phases in proportion to their summed thread time, so phases add up to it.
  const double thread_ms = ptx->emit_ms + ptx->optimize_ms + ptx->codegen_ms;
  const double scale = thread_ms > 0 ? ptx->wall_ms / thread_ms : 1.0;
  timings.llvm_ir_ms = ptx->emit_ms * scale;
  timings.optimize_ms = ptx->optimize_ms * scale;
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
  absl::StatusOr<std::unique_ptr<CudaProgram>> loaded =
      CudaProgram::Load(program, *std::move(ptx), dump);
  timings.codegen_ms =
      ptx_ms + std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count();
  if (!loaded.ok()) return loaded.status();
  if (dump && !(*loaded)->cubin().empty()) {
    if (absl::Status s = WriteFile(dump_dir, "kernels.cubin", (*loaded)->cubin()); !s.ok()) return s;
    const std::string sass = Sass(dump_dir);
    if (!sass.empty()) {
      if (absl::Status s = WriteFile(dump_dir, "kernels.sass", sass); !s.ok()) return s;
    }
  }
  return loaded;
}

}  // namespace rk::compiler::gpu
