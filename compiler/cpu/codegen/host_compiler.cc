#include "compiler/cpu/codegen/host_compiler.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/parallel_for.h"
#include "base/sha256.h"
#include "base/stopwatch.h"
#include "compiler/cpu/codegen/emit_module.h"
#include "compiler/cpu/codegen/jit.h"
#include "compiler/cpu/codegen/kernel_cache.h"
#include "compiler/kernel/kernel_key.h"
#include "compiler/support/version.h"
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

// Kernels with less work than this are small: the short pipeline and
// CodeGenOptLevel::None make their compile several times cheaper, and their
// run time stays microseconds.
constexpr int64_t kSmallKernelWork = int64_t{1} << 16;
// So are kernels with less work than this per LLVM instruction: O2's cost
// grows with the IR, what it saves with the work. A tiled matmul of the
// attention example (131K iterations, 1,148 instructions) costs ~10 ms more to
// compile with O2 and ~40 us more to run without
// (docs/BENCHMARKS_HISTORY.md).
constexpr int64_t kWorkPerInstructionForO2 = 1024;
// Kernels with at least this much work compute f32 exp inline.
constexpr int64_t kInlineExpWork = int64_t{1} << 16;

// Threads for `tasks` kernels: CompileThreads, but at least two kernels a
// thread. A thread's first kernel pays for LLVM's first use of its code in a
// fresh process; for two kernels one thread was faster
// (docs/BENCHMARKS_HISTORY.md).
int ThreadsFor(int tasks, const HostCompileOptions& options) {
  if (options.threads > 0) return options.threads;
  return std::max(1, std::min(CompileThreads(tasks), tasks / 2));
}

// Every CodegenOptions field; a new field changes the size: add it here.
static_assert(sizeof(llvm_ir::CodegenOptions) == 20,
              "CodegenOptions changed: add the new field to CodegenKey");
std::string CodegenKey(const llvm_ir::CodegenOptions& c) {
  return absl::StrCat("fast_math=", c.fast_math, " low_precision=", c.low_precision,
                      " vector_width=", c.vector_width, " threads=", c.threads,
                      " inline_exp=", c.inline_exp, " native_bf16=", c.native_bf16,
                      " approx_16bit_math=", c.approx_16bit_math,
                      " tensor_cores=", c.tensor_cores, " tf32=", c.tf32);
}

// Big kernels compute f32 exp inline, where it vectorizes (no vector expf
// here); small ones call expf, which keeps their IR, optimization and code
// generation ~30% cheaper. Both are within 1 ulp of exp.
llvm_ir::CodegenOptions CodegenFor(const kernel::Kernel& k, const HostCompileOptions& options) {
  llvm_ir::CodegenOptions codegen = options.codegen;
  codegen.inline_exp = Work(k.body) >= kInlineExpWork;
  return codegen;
}

// One kernel of the program; emitted in its own context only when no cache
// has its code.
struct Unit {
  // The cache key: the optimization level, the codegen options and the
  // kernel IR (compiler/kernel/kernel_key.h), which determine the module
  // the kernel lowers to and hence its pipeline and object.
  std::string key;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  bool small = false;
  size_t instructions = 0;

  // Frees the module, then its context.
  void Release() {
    module.reset();
    context.reset();
  }
};

std::string UnitKey(const kernel::Program& program, const kernel::Kernel& k,
                    const HostCompileOptions& options) {
  return absl::StrCat("opt_level=", options.opt_level, " ", CodegenKey(CodegenFor(k, options)), "\n",
                      kernel::KernelKey(program, k));
}

absl::Status Emit(const kernel::Program& program, const kernel::Kernel& k,
                  const HostCompileOptions& options, Unit& unit) {
  unit.context = std::make_unique<llvm::LLVMContext>();
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitKernelModule(program, k, CodegenFor(k, options), *unit.context, options.verify);
  if (!module.ok()) return module.status();
  unit.module = *std::move(module);
  if (absl::Status s = PrepareForHost(*unit.module); !s.ok()) return s;
  for (const llvm::Function& f : *unit.module) unit.instructions += f.getInstructionCount();
  const int64_t work = Work(k.body);
  unit.small = work < kSmallKernelWork ||
               work < kWorkPerInstructionForO2 * static_cast<int64_t>(unit.instructions);
  return absl::OkStatus();
}

// The disk cache's key: everything the object depends on. The git commit
// covers changes to code generation that the kernel IR does not show; a
// change of that kind in an uncommitted tree ("-dirty") should bump
// kObjectKeyVersion.
constexpr const char* kObjectKeyVersion = "2";

std::string DiskKey(const Unit& unit, const std::string& target) {
  return Sha256Hex(absl::StrCat("kernel object ", kObjectKeyVersion, "\nreprokit ",
                                ReprokitVersion(), " ", GitCommit(), "\nllvm ", LlvmVersion(), "\n",
                                target, "\n", unit.key));
}

// A kernel compiled (or read from disk) in this call.
struct Compiled {
  std::string symbol;
  std::string object;
  std::string ir_before, ir_after, assembly;  // keep_text only
  absl::Status status;
};

absl::Status CompileUnit(Unit& unit, const kernel::Program& program, const kernel::Kernel& k,
                         const HostCompileOptions& options, const std::string& target,
                         size_t index, Compiled& out, HostKernelTiming& timing) {
  const std::string digest = DiskKey(unit, target);
  DiskKernelCache* disk = options.use_cache ? options.disk_cache : nullptr;
  // The symbol is part of the object: with the cache it depends on the key
  // alone; without it, identical kernels are not merged and need their own.
  out.symbol = options.use_cache ? absl::StrCat("rk_kernel_", digest)
                                 : absl::StrCat("rk_kernel_", digest, "_", index);
  if (disk != nullptr) {
    if (std::optional<std::string> object = disk->Load(digest)) {
      out.object = *std::move(object);
      timing.source = "disk";
      return absl::OkStatus();
    }
  }
  Stopwatch emit;
  if (absl::Status s = Emit(program, k, options, unit); !s.ok()) return s;
  timing.emit_ms = emit.Lap();
  const char* pipeline = PipelineFor(options.opt_level, unit.small);
  llvm::Module& module = *unit.module;
  module.getFunction(kThunkName)->setName(out.symbol);
  Stopwatch watch;
  if (options.keep_text) {
    // Local symbols are part of the object, so only dumps name the function
    // after the kernel.
    module.getFunction("kernel")->setName(k.name);
    out.ir_before = ModuleText(module);
  }
  watch.Lap();
  if (absl::Status s = OptimizeModule(module, pipeline); !s.ok()) return s;
  timing.optimize_ms = watch.Lap();
  if (options.keep_text) {
    out.ir_after = ModuleText(module);
    absl::StatusOr<std::string> assembly = EmitAssembly(module, unit.small);
    if (!assembly.ok()) return assembly.status();
    out.assembly = *std::move(assembly);
  }
  watch.Lap();
  absl::StatusOr<std::string> object = EmitObject(module, unit.small);
  if (!object.ok()) return object.status();
  timing.codegen_ms = watch.Lap();
  out.object = *std::move(object);
  timing.source = "compiled";
  unit.Release();
  if (disk != nullptr) disk->Store(digest, out.object);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HostProgram> CompileForHost(const kernel::Program& program,
                                           const HostCompileOptions& options) {
  Stopwatch total;
  const auto start = std::chrono::steady_clock::now();
  HostProgram out;
  const int n = static_cast<int>(program.kernels.size());
  for (const kernel::Kernel& k : program.kernels) {
    out.kernels.push_back(CallFor(k, options.codegen.threads));
    out.timings.push_back(HostKernelTiming{k.name, "", 0, 0, 0});
  }
  // Starts the JIT on a process's first compile.
  absl::StatusOr<std::string> target = HostTargetDescription();
  if (!target.ok()) return target.status();
  out.llvm_ir_ms = total.Lap();


  // Keys from the kernel IR, so no kernel that some cache has meets LLVM;
  // then the in-process cache and kernels repeated within the program.
  Stopwatch lookups;
  std::vector<Unit> units(n);
  for (int i = 0; i < n; ++i) units[i].key = UnitKey(program, program.kernels[i], options);
  KernelCache& cache = KernelCache::Global();
  std::vector<int> todo;                    // program positions to compile
  std::vector<int> compiled_as(n, -1);      // position in `todo`
  std::map<std::string, int> first_with_key;
  for (int i = 0; i < n; ++i) {
    if (options.use_cache) {
      if (std::optional<KernelCache::Entry> hit = cache.Lookup(units[i].key)) {
        out.kernels[i].fn = reinterpret_cast<RkLoopBody>(hit->fn);
        out.code.push_back(std::move(hit->owner));
        out.timings[i].source = "memory";
        ++out.cached_kernels;
        continue;
      }
      auto [it, inserted] = first_with_key.try_emplace(units[i].key, static_cast<int>(todo.size()));
      if (!inserted) {
        compiled_as[i] = it->second;
        out.timings[i].source = "duplicate";
        continue;
      }
    }
    compiled_as[i] = static_cast<int>(todo.size());
    todo.push_back(i);
  }
  out.llvm_ir_ms += lookups.Lap();

  // Disk lookups, then emission, optimization and code generation of the
  // rest, biggest kernels (by kernel IR expressions) first so the threads
  // finish together.
  std::vector<int> order(todo.size());
  for (size_t j = 0; j < todo.size(); ++j) order[j] = static_cast<int>(j);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return program.kernels[todo[a]].exprs.size() > program.kernels[todo[b]].exprs.size();
  });
  std::vector<Compiled> compiled(todo.size());
  const int m = static_cast<int>(todo.size());
  const int compile_threads = ThreadsFor(m, options);
  out.threads = std::max(out.threads, compile_threads);
  ParallelFor(m, compile_threads, [&](int j) {
    const int i = todo[order[j]];
    Compiled& c = compiled[order[j]];
    c.status = CompileUnit(units[i], program, program.kernels[i], options, *target, i, c,
                           out.timings[i]);
    units[i].Release();
  });
  std::vector<std::string> objects, symbols;
  for (size_t j = 0; j < todo.size(); ++j) {
    Compiled& c = compiled[j];
    if (!c.status.ok()) return c.status;
    const HostKernelTiming& timing = out.timings[todo[j]];
    out.llvm_ir_ms += timing.emit_ms;
    out.optimize_ms += timing.optimize_ms;
    out.codegen_ms += timing.codegen_ms;
    if (timing.source == "disk") ++out.disk_cached_kernels;
    if (options.keep_text) {
      absl::StrAppend(&out.ir_before, c.ir_before);
      absl::StrAppend(&out.ir_after, c.ir_after);
      absl::StrAppend(&out.assembly, c.assembly);
    }
    objects.push_back(std::move(c.object));
    symbols.push_back(std::move(c.symbol));
  }

  // One JITDylib for everything compiled or read here.
  if (!todo.empty()) {
    Stopwatch link;
    absl::StatusOr<std::shared_ptr<JitCode>> code = JitCode::Link(objects, symbols);
    if (!code.ok()) return code.status();
    std::shared_ptr<const void> owner = *code;
    for (int i = 0; i < n; ++i) {
      if (compiled_as[i] < 0) continue;
      out.kernels[i].fn = reinterpret_cast<RkLoopBody>((*code)->address(compiled_as[i]));
    }
    if (options.use_cache) {
      for (size_t j = 0; j < todo.size(); ++j) {
        cache.Insert(units[todo[j]].key, KernelCache::Entry{(*code)->address(j), owner});
      }
    }
    out.code.push_back(std::move(owner));
    out.link_ms = link.Lap();
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
  return out;
}

}  // namespace rk::compiler::cpu
