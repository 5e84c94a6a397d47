#include "compiler/cuda/codegen/ptx_compiler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/parallel_for.h"
#include "base/sha256.h"
#include "compiler/cuda/codegen/drop_sign_copies.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "compiler/support/version.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace rk::compiler::cuda {
namespace {

constexpr char kTriple[] = "nvptx64-nvidia-cuda";

double MsSince(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

std::string ErrorText(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return os.str();
}

std::string ModuleText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return os.str();
}

// NVPTX TargetMachines of one arch, made on demand and reused: each module
// compile takes one for itself, so modules compile on several threads.
class NvptxTarget {
 public:
  NvptxTarget(const llvm::Target* target, std::string arch)
      : target_(target), arch_(std::move(arch)) {}

  // A machine for the caller alone (null if LLVM cannot make one).
  std::unique_ptr<llvm::TargetMachine> Take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<llvm::TargetMachine> tm = std::move(free_.back());
        free_.pop_back();
        return tm;
      }
    }
    // Code generation at "Less": the same PTX as "Aggressive" on every
    // benchmark case, in up to a quarter less time (ptxas does the
    // machine-level work).
    return std::unique_ptr<llvm::TargetMachine>(target_->createTargetMachine(
        kTriple, arch_, "", llvm::TargetOptions(), std::nullopt, std::nullopt,
        llvm::CodeGenOptLevel::Less));
  }

  void Return(std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(tm));
  }

 private:
  const llvm::Target* target_;
  const std::string arch_;
  std::mutex mu_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> free_;
};

// The archs LLVM 19's NVPTX backend prints PTX for, oldest first.
constexpr const char* kKnownArchs[] = {"sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62",
                                       "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87",
                                       "sm_89", "sm_90", "sm_90a"};

absl::StatusOr<NvptxTarget*> TargetFor(const std::string& arch) {
  static std::mutex mu;
  static auto* targets = new std::map<std::string, std::unique_ptr<NvptxTarget>>;
  static std::once_flag init;
  std::call_once(init, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::lock_guard<std::mutex> lock(mu);
  auto it = targets->find(arch);
  if (it != targets->end()) return it->second.get();
  if (arch.rfind("sm_", 0) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("cuda_arch '", arch, "' is not sm_NN"));
  }
  if (std::find(std::begin(kKnownArchs), std::end(kKnownArchs), arch) == std::end(kKnownArchs)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cuda_arch '", arch, "' is not one LLVM 19's NVPTX backend supports (sm_50 .. sm_90a)"));
  }
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (target == nullptr) return absl::InternalError(absl::StrCat("no NVPTX target: ", error));
  auto entry = std::make_unique<NvptxTarget>(target, arch);
  std::unique_ptr<llvm::TargetMachine> probe = entry->Take();
  if (probe == nullptr) return absl::InternalError("cannot create the NVPTX TargetMachine");
  entry->Return(std::move(probe));
  NvptxTarget* raw = entry.get();
  (*targets)[arch] = std::move(entry);
  return raw;
}

std::string ExecutableDir() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  std::string s(path, n);
  const size_t slash = s.rfind('/');
  return slash == std::string::npos ? "" : s.substr(0, slash);
}

// The bytes of libdevice.10.bc, read once (empty when not found).
const std::string& Libdevice(std::string& where) {
  static std::string* bytes = nullptr;
  static std::string* searched = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    bytes = new std::string;
    searched = new std::string;
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("REPROKIT_LIBDEVICE")) candidates.push_back(env);
    candidates.push_back(ExecutableDir() + "/libdevice.10.bc");
    if (const char* cuda = std::getenv("CUDA_PATH")) {
      candidates.push_back(std::string(cuda) + "/nvvm/libdevice/libdevice.10.bc");
    }
    candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
    for (const std::string& c : candidates) {
      std::ifstream in(c, std::ios::binary);
      if (!in) continue;
      std::stringstream ss;
      ss << in.rdbuf();
      *bytes = ss.str();
      *searched = c;
      return;
    }
    for (const std::string& c : candidates) absl::StrAppend(searched, searched->empty() ? "" : ", ", c);
  });
  where = *searched;
  return *bytes;
}

// Points libm-style calls at libdevice (__nv_expf, ...), and llvm.pow at
// __nv_pow[f] (the backend cannot lower it). Returns whether any was bound.
bool BindMath(llvm::Module& module) {
  bool any = false;
  std::vector<llvm::Function*> pows;
  for (llvm::Function& f : module.functions()) {
    if (!f.isDeclaration()) continue;
    if (f.isIntrinsic()) {
      if (f.getIntrinsicID() == llvm::Intrinsic::pow) pows.push_back(&f);
      continue;
    }
    f.setName("__nv_" + f.getName().str());
    any = true;
  }
  for (llvm::Function* pow : pows) {
    llvm::Type* t = pow->getReturnType();
    llvm::FunctionCallee nv = module.getOrInsertFunction(
        t->isDoubleTy() ? "__nv_pow" : "__nv_powf", t, t, t);
    pow->replaceAllUsesWith(nv.getCallee());
    pow->eraseFromParent();
    any = true;
  }
  return any;
}

absl::Status LinkLibdevice(llvm::Module& module) {
  std::string where;
  const std::string& bytes = Libdevice(where);
  if (bytes.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cuda: libdevice.10.bc not found (tried ", where,
        "); set REPROKIT_LIBDEVICE or put it next to the binary"));
  }
  llvm::MemoryBufferRef ref(llvm::StringRef(bytes.data(), bytes.size()), "libdevice.10.bc");
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::getLazyBitcodeModule(ref, module.getContext());
  if (!lib) return absl::InternalError(absl::StrCat("libdevice: ", ErrorText(lib.takeError())));
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded)) {
    return absl::InternalError("cuda: linking libdevice failed");
  }
  return absl::OkStatus();
}

absl::Status Optimize(llvm::Module& module, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  const llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                        : opt_level == 1 ? llvm::OptimizationLevel::O1
                                        : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                         : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
  return absl::OkStatus();
}

// The module after emission through PTX: libdevice bound, everything but
// the entries internalized, O2, PTX text into out.ptx. Returns `tm` to
// `target`.
absl::Status FinishModule(llvm::Module& m, std::unique_ptr<llvm::TargetMachine> tm,
                          const GpuOptions& options, NvptxTarget& target, bool keep_llvm_text,
                          PtxProgram& out) {
  auto clock = std::chrono::steady_clock::now();
  if (BindMath(m)) {
    if (absl::Status s = LinkLibdevice(m); !s.ok()) return s;
  }
  std::set<std::string> entries;
  for (const KernelLaunch& l : out.launches) entries.insert(l.entry);
  llvm::internalizeModule(m, [&](const llvm::GlobalValue& gv) {
    return entries.count(gv.getName().str()) > 0;
  });
  if (absl::Status s = Optimize(m, *tm, options.opt_level); !s.ok()) return s;
  DropSignCopies(m);
  out.optimize_ms = MsSince(clock);
  if (keep_llvm_text) out.llvm_after_opt = ModuleText(m);

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      return absl::InternalError("cuda: the NVPTX backend cannot emit PTX");
    }
    pm.run(m);
  }
  target.Return(std::move(tm));
  out.ptx = ptx.str().str();
  out.codegen_ms = MsSince(clock);
  return absl::OkStatus();
}

// Units [first, end) of `plan` as one LLVM module for `tm`'s target; their
// launches go into out.launches.
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitForTarget(const NvptxPlan& plan, size_t first,
                                                           size_t end, const GpuOptions& options,
                                                           llvm::TargetMachine& tm,
                                                           llvm::LLVMContext& context,
                                                           PtxProgram& out) {
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitNvptxModule(plan, first, end, options, context, out.launches);
  if (!module.ok()) return module.status();
  (*module)->setTargetTriple(kTriple);
  (*module)->setDataLayout(tm.createDataLayout());
  return module;
}

// Units [first, end) of `plan` through LLVM: one module, its PTX.
absl::StatusOr<PtxProgram> CompileModule(const NvptxPlan& plan, size_t first, size_t end,
                                         const GpuOptions& options, NvptxTarget& target,
                                         bool keep_llvm_text) {
  auto clock = std::chrono::steady_clock::now();
  std::unique_ptr<llvm::TargetMachine> tm = target.Take();
  if (tm == nullptr) return absl::InternalError("cannot create the NVPTX TargetMachine");
  PtxProgram out;
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitForTarget(plan, first, end, options, *tm, context, out);
  if (!module.ok()) return module.status();
  llvm::Module& m = **module;
  out.emit_ms = MsSince(clock);
  if (keep_llvm_text) out.llvm_before_opt = ModuleText(m);
  if (absl::Status s = FinishModule(m, std::move(tm), options, target, keep_llvm_text, out);
      !s.ok()) {
    return s;
  }
  return out;
}

// What a cached module's key covers besides its IR; a change to code
// generation that neither shows (in an uncommitted tree) should bump it.
constexpr const char* kPtxKeyVersion = "1";

// Unit `unit` of `plan` as a module of its own, named by content (header
// comment), from options.disk_cache when it holds it.
absl::StatusOr<PtxProgram> CompileCachedUnit(const NvptxPlan& plan, size_t unit,
                                             const GpuOptions& options, NvptxTarget& target) {
  auto clock = std::chrono::steady_clock::now();
  std::unique_ptr<llvm::TargetMachine> tm = target.Take();
  if (tm == nullptr) return absl::InternalError("cannot create the NVPTX TargetMachine");
  PtxProgram out;
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitForTarget(plan, unit, unit + 1, options, *tm, context, out);
  if (!module.ok()) return module.status();
  llvm::Module& m = **module;
  // Names that depend on the unit's place in its program (entries, shared
  // arrays) become placeholders for the key, then names made from it.
  std::vector<llvm::Function*> entries;
  for (const KernelLaunch& l : out.launches) {
    llvm::Function* f = m.getFunction(l.entry);
    if (f == nullptr) return absl::InternalError(absl::StrCat("cuda: no function ", l.entry));
    if (std::find(entries.begin(), entries.end(), f) == entries.end()) entries.push_back(f);
  }
  for (size_t i = 0; i < entries.size(); ++i) entries[i]->setName(absl::StrCat("rk_entry_", i));
  int shared = 0;
  for (llvm::GlobalVariable& v : m.globals()) {
    if (v.hasLocalLinkage()) v.setName(absl::StrCat("rk_shared_", shared++));
  }
  m.setModuleIdentifier("rk_unit");
  m.setSourceFileName("rk_unit");
  const std::string key = Sha256Hex(absl::StrCat(
      "nvptx module ", kPtxKeyVersion, "\nreprokit ", ReprokitVersion(), " ", GitCommit(),
      "\nllvm ", LlvmVersion(), "\narch ", options.arch, "\nopt_level ", options.opt_level,
      "\n", ModuleText(m)));
  std::vector<std::string> names;
  for (size_t i = 0; i < entries.size(); ++i) {
    names.push_back(absl::StrCat("rk_", key.substr(0, 16), "_", i));
  }
  // Launches name their entries by the old names, in `entries` order of
  // first use.
  std::vector<std::string> old_names;
  for (const KernelLaunch& l : out.launches) {
    if (std::find(old_names.begin(), old_names.end(), l.entry) == old_names.end()) {
      old_names.push_back(l.entry);
    }
  }
  for (KernelLaunch& l : out.launches) {
    l.entry = names[std::find(old_names.begin(), old_names.end(), l.entry) - old_names.begin()];
  }
  for (size_t i = 0; i < entries.size(); ++i) entries[i]->setName(names[i]);
  out.emit_ms = MsSince(clock);
  if (std::optional<std::string> ptx = options.disk_cache->Load(key); ptx.has_value()) {
    target.Return(std::move(tm));
    out.ptx = *std::move(ptx);
    out.disk_cached_modules = 1;
    return out;
  }
  if (absl::Status s = FinishModule(m, std::move(tm), options, target, false, out); !s.ok()) {
    return s;
  }
  options.disk_cache->Store(key, out.ptx);
  return out;
}

}  // namespace

std::string NvptxArchFor(int cc_major, int cc_minor) {
  const int number = cc_major * 10 + cc_minor;
  std::string best = "sm_50";
  for (const char* arch : kKnownArchs) {
    const std::string a(arch);
    if (a.back() == 'a') continue;  // arch-specific features run on that arch only
    if (std::stoi(a.substr(3)) <= number) best = a;
  }
  return best;
}

absl::StatusOr<PtxProgram> CompileToPtx(const kernel::Program& program,
                                        const GpuOptions& requested, bool keep_llvm_text) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<NvptxPlan>> plan = PlanNvptx(program);
  if (!plan.ok()) return plan.status();
  // sm_90 becomes sm_90a where the wgmma matmul form is on and a matmul
  // takes it (planning/wgmma_matmul.h); the module keys and the assemblers
  // see it.
  GpuOptions options = requested;
  if (options.tensor_cores && WgmmaArch(options.arch) != options.arch &&
      HasWgmmaMatmul((*plan)->program, (*plan)->shapes, options.tf32)) {
    options.arch = WgmmaArch(options.arch);
  }
  absl::StatusOr<NvptxTarget*> target = TargetFor(options.arch);
  if (!target.ok()) return target.status();
  const int units = static_cast<int>((*plan)->units.size());
  // With the disk cache every unit is a module of its own; without it
  // consecutive units share a module, one module a thread, or one in all when
  // LLVM text is kept (dumps: one file of each kind). A program without units
  // (every output an input or a folded constant) still gets its one module,
  // with no entries.
  const bool cached = options.disk_cache != nullptr && !keep_llvm_text && units > 0;
  const int threads = options.compile_threads > 0 ? std::min(options.compile_threads, units)
                                                  : CompileThreads(units);
  const int modules = cached ? units : keep_llvm_text ? 1 : std::max(threads, 1);
  std::vector<absl::StatusOr<PtxProgram>> parts(modules, absl::UnknownError("not compiled"));
  const double plan_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ParallelFor(modules, threads, [&](int i) {
    if (cached) {
      parts[i] = CompileCachedUnit(**plan, i, options, **target);
    } else {
      const size_t first = static_cast<size_t>(i) * units / modules;
      const size_t end = static_cast<size_t>(i + 1) * units / modules;
      parts[i] = CompileModule(**plan, first, end, options, **target, keep_llvm_text);
    }
    // Module i of the result is parts[i]: its PTX can go on (to the
    // assembler) while other modules compile.
    if (options.on_module && parts[i].ok()) options.on_module(i, parts[i]->ptx);
  });
  PtxProgram out;
  out.emit_ms = plan_ms;
  for (int i = 0; i < modules; ++i) {
    if (!parts[i].ok()) return parts[i].status();
    PtxProgram& part = *parts[i];
    for (KernelLaunch& launch : part.launches) {
      launch.module = i;
      out.launches.push_back(std::move(launch));
    }
    out.ptx += part.ptx;
    out.modules.push_back(std::move(part.ptx));
    out.emit_ms += part.emit_ms;
    out.optimize_ms += part.optimize_ms;
    out.codegen_ms += part.codegen_ms;
    out.llvm_before_opt += part.llvm_before_opt;
    out.llvm_after_opt += part.llvm_after_opt;
    out.disk_cached_modules += part.disk_cached_modules;
  }
  out.threads = std::max(1, std::min(threads, modules));
  out.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string PrintLaunches(const std::vector<KernelLaunch>& launches) {
  std::string text;
  for (const KernelLaunch& l : launches) {
    absl::StrAppendFormat(&text, "%s  %s  block=(%u,%u,%u)  grid=", l.entry, KernelFormName(l.form),
                          l.block[0], l.block[1], l.block[2]);
    if (l.grid[0] == 0) {
      absl::StrAppend(&text, "auto");
    } else {
      absl::StrAppendFormat(&text, "(%u,%u,%u)", l.grid[0], l.grid[1], l.grid[2]);
    }
    absl::StrAppendFormat(&text, "  work=%d  buffers=%d", l.work, l.buffers.size());
    if (l.scratch_bytes > 0) absl::StrAppendFormat(&text, "  scratch=%d", l.scratch_bytes);
    if (l.rows_per_block > 1) absl::StrAppendFormat(&text, "  rows_per_block=%d", l.rows_per_block);
    if (l.dynamic_shared_bytes > 0) {
      absl::StrAppendFormat(&text, "  dynamic_shared=%d", l.dynamic_shared_bytes);
    }
    if (!l.tensor_maps.empty()) absl::StrAppendFormat(&text, "  tensor_maps=%d", l.tensor_maps.size());
    text += "\n";
  }
  return text;
}

}  // namespace rk::compiler::cuda
