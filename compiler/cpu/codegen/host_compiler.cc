#include "compiler/cpu/codegen/host_compiler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/stopwatch.h"
#include "compiler/cpu/codegen/emit_module.h"
#include "compiler/cpu/codegen/jit.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler::cpu {
namespace {

std::string ModuleText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return os.str();
}

cpu::KernelCall CallFor(const kernel::Kernel& k, int threads) {
  cpu::KernelCall call;
  call.buffers = KernelArguments(k);
  const bool single_loop = k.body.size() == 1 && k.body[0].kind == kernel::StmtKind::kLoop;
  call.extent = single_loop ? k.body[0].extent : 0;
  call.threads = single_loop && k.body[0].parallel && threads > 1 ? threads : 1;
  return call;
}

// Iterations of the innermost statements, summed over the kernel.
int64_t Work(const std::vector<kernel::Stmt>& body) {
  int64_t work = 0;
  for (const kernel::Stmt& s : body) {
    work += s.kind == kernel::StmtKind::kLoop ? s.extent * std::max<int64_t>(1, Work(s.body)) : 1;
  }
  return work;
}

// Kernels with less work than this get CodeGenOptLevel::None: code generation
// is 4-10x cheaper and their run time stays microseconds.
constexpr int64_t kFastCodegenWork = int64_t{1} << 16;

// A kernel compiled in this call: its cache key, its symbol, and the kernels
// of the program that use it.
struct NewKernel {
  std::string key;
  std::string symbol;
  std::vector<size_t> users;
};

// The kernels compiled in this call with one code generation level, linked
// into one module.
struct Batch {
  std::unique_ptr<llvm::Module> module;
  std::vector<NewKernel> kernels;
};

absl::Status CompileBatch(Batch& batch, bool fast, const HostCompileOptions& options,
                          HostProgram& out) {
  if (batch.kernels.empty()) return absl::OkStatus();
  Stopwatch watch;
  if (options.keep_text) absl::StrAppend(&out.ir_before, ModuleText(*batch.module));
  watch.Lap();
  if (absl::Status s = OptimizeModule(*batch.module, options.opt_level); !s.ok()) return s;
  out.optimize_ms += watch.Lap();
  if (options.keep_text) {
    absl::StrAppend(&out.ir_after, ModuleText(*batch.module));
    absl::StatusOr<std::string> assembly = EmitAssembly(*batch.module);
    if (!assembly.ok()) return assembly.status();
    absl::StrAppend(&out.assembly, *assembly);
  }
  std::vector<std::string> symbols;
  for (const NewKernel& k : batch.kernels) symbols.push_back(k.symbol);
  JitCode::Timings timings;
  absl::StatusOr<std::shared_ptr<JitCode>> code =
      JitCode::Create(std::move(batch.module), symbols, fast, &timings);
  if (!code.ok()) return code.status();
  out.codegen_ms += timings.codegen_ms;
  out.link_ms += timings.link_ms;
  std::shared_ptr<const void> owner = *code;
  for (size_t j = 0; j < batch.kernels.size(); ++j) {
    void* fn = (*code)->address(j);
    for (size_t user : batch.kernels[j].users) {
      out.kernels[user].fn = reinterpret_cast<RkLoopBody>(fn);
    }
    if (options.use_cache) {
      KernelCache::Global().Insert(batch.kernels[j].key, KernelCache::Entry{fn, owner});
    }
  }
  out.code.push_back(std::move(owner));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HostProgram> CompileForHost(const kernel::Program& program,
                                           const HostCompileOptions& options) {
  static std::atomic<int64_t> next_symbol{0};
  Stopwatch watch;
  HostProgram out;
  auto context = std::make_unique<llvm::LLVMContext>();
  Batch batches[2];  // [0]: CodeGenOptLevel::Less, [1]: None
  for (Batch& batch : batches) {
    batch.module = std::make_unique<llvm::Module>("rk_program", *context);
    if (absl::Status s = PrepareForHost(*batch.module); !s.ok()) return s;
  }
  std::map<std::string, std::pair<int, size_t>> fresh_index;  // key -> (batch, position)
  KernelCache& cache = KernelCache::Global();
  llvm_ir::CodegenOptions codegen = options.codegen;
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const kernel::Kernel& k = program.kernels[i];
    out.kernels.push_back(CallFor(k, options.codegen.threads));
    const int fast = Work(k.body) < kFastCodegenWork ? 1 : 0;
    // Big kernels compute f32 exp inline, where it vectorizes (no vector
    // expf here); small ones call expf, which keeps their IR, O2 and code
    // generation ~30% cheaper. Both are within 1 ulp of exp.
    codegen.inline_exp = fast == 0;
    absl::StatusOr<std::unique_ptr<llvm::Module>> module =
        EmitKernelModule(program, k, codegen, *context, options.verify);
    if (!module.ok()) return module.status();
    if (absl::Status s = PrepareForHost(**module); !s.ok()) return s;
    std::string key = absl::StrCat("opt_level=", options.opt_level, " codegen=",
                                   fast ? "fast" : "full", "\n", ModuleText(**module));
    if (options.use_cache) {
      if (std::optional<KernelCache::Entry> hit = cache.Lookup(key)) {
        out.kernels.back().fn = reinterpret_cast<RkLoopBody>(hit->fn);
        out.code.push_back(std::move(hit->owner));
        ++out.cached_kernels;
        continue;
      }
      auto [it, inserted] =
          fresh_index.try_emplace(key, fast, batches[fast].kernels.size());
      if (!inserted) {
        batches[it->second.first].kernels[it->second.second].users.push_back(i);
        continue;
      }
    }
    NewKernel entry{std::move(key), absl::StrCat("rk_", k.name, "_", next_symbol++), {i}};
    (*module)->getFunction(kThunkName)->setName(entry.symbol);
    (*module)->getFunction("kernel")->setName(k.name);
    if (llvm::Linker::linkModules(*batches[fast].module, *std::move(module))) {
      return absl::InternalError(absl::StrCat("cannot link the module of kernel ", k.name));
    }
    batches[fast].kernels.push_back(std::move(entry));
  }
  out.llvm_ir_ms = watch.Lap();
  for (int fast : {0, 1}) {
    if (absl::Status s = CompileBatch(batches[fast], fast == 1, options, out); !s.ok()) return s;
  }
  return out;
}

}  // namespace rk::compiler::cpu
