#include "compiler/cpu/codegen/jit.h"

#include <atomic>
#include <chrono>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "compiler/cpu/runtime/runtime_support.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace rk::compiler::cpu {
namespace {

struct HostJit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> tm;       // CodeGenOptLevel::Less
  std::unique_ptr<llvm::TargetMachine> fast_tm;  // CodeGenOptLevel::None (FastISel, fast RA)
  std::mutex mu;  // guards both TargetMachines (pipelines, code generation, assembly)
  std::atomic<int64_t> next_id{0};
  std::string error;
};

std::string ToString(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return os.str();
}

// Defines the rk_* helpers once, in the process-symbols JITDylib that every
// JITDylib created through LLJIT links against.
llvm::Error DefineRuntime(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap runtime;
  auto define = [&](const char* symbol, void* address) {
    runtime[jit.mangleAndIntern(symbol)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported);
  };
  define("rk_parallel_for", reinterpret_cast<void*>(&rk_parallel_for));
  define("rk_double_to_i64_wrapped", reinterpret_cast<void*>(&rk_double_to_i64_wrapped));
  return jit.getProcessSymbolsJITDylib()->define(llvm::orc::absoluteSymbols(std::move(runtime)));
}

HostJit* CreateHostJit() {
  auto* host = new HostJit;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    host->error = ToString(jtmb.takeError());
    return host;
  }
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    host->error = ToString(tm.takeError());
    return host;
  }
  llvm::orc::JITTargetMachineBuilder fast_jtmb = *jtmb;
  fast_jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  auto fast_tm = fast_jtmb.createTargetMachine();
  if (!fast_tm) {
    host->error = ToString(fast_tm.takeError());
    return host;
  }
  // Objects come in already compiled and carry no static initializers, so
  // the JIT needs no platform support (which would add symbols and work to
  // every JITDylib).
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(*jtmb)
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .create();
  if (!jit) {
    host->error = ToString(jit.takeError());
    return host;
  }
  if (llvm::Error e = DefineRuntime(**jit)) {
    host->error = ToString(std::move(e));
    return host;
  }
  host->tm = std::move(*tm);
  host->fast_tm = std::move(*fast_tm);
  host->jit = std::move(*jit);
  return host;
}

// InstCombine runs one iteration here; LLVM's textual "instcombine" also
// verifies that one iteration reached a fixpoint and aborts the process when
// it did not (seen on reductions over size-1 axes), so that check is off.
constexpr const char* kKernelPipeline =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(licm),loop(loop-rotate),indvars,"
    "loop-vectorize,instcombine<no-verify-fixpoint>,simplifycfg,slp-vectorizer,early-cse,"
    "instcombine<no-verify-fixpoint>)";

HostJit& Host() {
  static HostJit* host = CreateHostJit();
  return *host;
}

absl::Status HostStatus() {
  HostJit& host = Host();
  if (host.jit == nullptr || host.tm == nullptr || host.fast_tm == nullptr) {
    return absl::InternalError(absl::StrCat("cannot start the LLVM JIT: ", host.error));
  }
  return absl::OkStatus();
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

absl::Status PrepareForHost(llvm::Module& module) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  module.setDataLayout(Host().jit->getDataLayout());
  module.setTargetTriple(Host().jit->getTargetTriple().str());
  return absl::OkStatus();
}

absl::Status OptimizeModule(llvm::Module& module, int opt_level) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  HostJit& host = Host();
  std::lock_guard<std::mutex> lock(host.mu);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder pb(host.tm.get(), tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm;
  if (opt_level == 2) {
    // The O2 function simplification and loop vectorization passes without
    // the interprocedural ones (kernels are leaf functions called once).
    if (llvm::Error e = pb.parsePassPipeline(mpm, kKernelPipeline)) {
      return absl::InternalError(ToString(std::move(e)));
    }
  } else {
    mpm = level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level)
                                               : pb.buildPerModuleDefaultPipeline(level);
  }
  mpm.run(module, mam);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitAssembly(llvm::Module& module) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  HostJit& host = Host();
  std::lock_guard<std::mutex> lock(host.mu);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if (host.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the host target cannot emit assembly");
  }
  pm.run(module);
  return std::string(text.str());
}

absl::StatusOr<std::shared_ptr<JitCode>> JitCode::Create(std::unique_ptr<llvm::Module> module,
                                                        absl::Span<const std::string> symbols,
                                                        bool fast_codegen, Timings* timings) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  HostJit& host = Host();
  llvm::orc::LLJIT& jit = *host.jit;
  auto start = std::chrono::steady_clock::now();
  llvm::SmallVector<char, 0> object;
  {
    std::lock_guard<std::mutex> lock(host.mu);
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    llvm::MCContext* mc = nullptr;
    llvm::TargetMachine& tm = fast_codegen ? *host.fast_tm : *host.tm;
    if (tm.addPassesToEmitMC(pm, mc, os)) {
      return absl::InternalError("the host target cannot emit machine code");
    }
    pm.run(*module);
  }
  module.reset();
  if (timings != nullptr) timings->codegen_ms = MsSince(start);
  start = std::chrono::steady_clock::now();

  auto dylib = jit.createJITDylib(absl::StrCat("rk_code_", host.next_id++));
  if (!dylib) return absl::InternalError(ToString(dylib.takeError()));
  std::shared_ptr<JitCode> code(new JitCode);
  code->dylib_ = &*dylib;
  auto buffer = std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(object), "rk_kernels",
                                                                /*RequiresNullTerminator=*/false);
  if (llvm::Error e = jit.addObjectFile(*dylib, std::move(buffer))) {
    return absl::InternalError(ToString(std::move(e)));
  }
  llvm::orc::SymbolLookupSet lookup_set;
  std::vector<llvm::orc::SymbolStringPtr> names;
  for (const std::string& symbol : symbols) {
    names.push_back(jit.mangleAndIntern(symbol));
    lookup_set.add(names.back());
  }
  auto found = jit.getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(&*dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(lookup_set));
  if (!found) return absl::InternalError(ToString(found.takeError()));
  for (const llvm::orc::SymbolStringPtr& name : names) {
    code->addresses_.push_back((*found)[name].getAddress().toPtr<void*>());
  }
  if (timings != nullptr) timings->link_ms = MsSince(start);
  return code;
}

JitCode::~JitCode() {
  if (dylib_ == nullptr) return;
  auto* jd = static_cast<llvm::orc::JITDylib*>(dylib_);
  llvm::consumeError(Host().jit->getExecutionSession().removeJITDylib(*jd));
}

}  // namespace rk::compiler::cpu
