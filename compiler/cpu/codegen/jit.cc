#include "compiler/cpu/codegen/jit.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/cpu/runtime/runtime_support.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace rk::compiler::cpu {

// InstCombine runs one iteration here; LLVM's textual "instcombine" also
// verifies that one iteration reached a fixpoint and aborts the process when
// it did not (seen on reductions over size-1 axes), so that check is off.
const char* const kKernelPipeline =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(licm),loop(loop-rotate),indvars,"
    "loop-vectorize,instcombine<no-verify-fixpoint>,simplifycfg,slp-vectorizer,early-cse,"
    "instcombine<no-verify-fixpoint>)";
// Allocas to registers, nothing else: the cheapest pipeline measured (the
// attention example's small kernels: 1 ms of optimization against 19 with
// cleanup passes added, and no slower to run; docs/BENCHMARKS_HISTORY.md).
const char* const kSmallKernelPipeline = "function(sroa)";

namespace {

std::string ToString(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return os.str();
}

struct HostJit {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::optional<llvm::orc::JITTargetMachineBuilder> jtmb;
  std::string target;  // HostTargetDescription
  std::string error;
  std::atomic<int64_t> next_id{0};

  // Idle TargetMachines, [0]: CodeGenOptLevel::Less, [1]: None.
  std::mutex pool_mu;
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle[2];
};

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
  host->target = absl::StrCat("triple=", jtmb->getTargetTriple().str(), " cpu=", jtmb->getCPU(),
                              " features=", jtmb->getFeatures().getString());
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
  host->jtmb = std::move(*jtmb);
  host->jit = std::move(*jit);
  return host;
}

HostJit& Host() {
  static HostJit* host = CreateHostJit();
  return *host;
}

absl::Status HostStatus() {
  HostJit& host = Host();
  if (host.jit == nullptr) {
    return absl::InternalError(absl::StrCat("cannot start the LLVM JIT: ", host.error));
  }
  return absl::OkStatus();
}

// A TargetMachine of the pool, returned to it on destruction.
class PooledTargetMachine {
 public:
  static absl::StatusOr<PooledTargetMachine> Acquire(bool fast) {
    if (absl::Status s = HostStatus(); !s.ok()) return s;
    HostJit& host = Host();
    {
      std::lock_guard<std::mutex> lock(host.pool_mu);
      std::vector<std::unique_ptr<llvm::TargetMachine>>& idle = host.idle[fast ? 1 : 0];
      if (!idle.empty()) {
        PooledTargetMachine tm(std::move(idle.back()), fast);
        idle.pop_back();
        return tm;
      }
    }
    llvm::orc::JITTargetMachineBuilder jtmb = *host.jtmb;
    jtmb.setCodeGenOptLevel(fast ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Less);
    auto tm = jtmb.createTargetMachine();
    if (!tm) return absl::InternalError(ToString(tm.takeError()));
    return PooledTargetMachine(std::move(*tm), fast);
  }
  PooledTargetMachine(PooledTargetMachine&&) = default;
  ~PooledTargetMachine() {
    if (tm_ == nullptr) return;
    HostJit& host = Host();
    std::lock_guard<std::mutex> lock(host.pool_mu);
    host.idle[fast_ ? 1 : 0].push_back(std::move(tm_));
  }
  llvm::TargetMachine& operator*() const { return *tm_; }

 private:
  PooledTargetMachine(std::unique_ptr<llvm::TargetMachine> tm, bool fast)
      : tm_(std::move(tm)), fast_(fast) {}
  std::unique_ptr<llvm::TargetMachine> tm_;
  bool fast_;
};

}  // namespace

absl::Status PrepareForHost(llvm::Module& module) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  module.setDataLayout(Host().jit->getDataLayout());
  module.setTargetTriple(Host().jit->getTargetTriple().str());
  return absl::OkStatus();
}

absl::StatusOr<std::string> HostTargetDescription() {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  return Host().target;
}

const char* PipelineFor(int opt_level, bool small_kernel) {
  switch (opt_level) {
    case 0:
      return "default<O0>";
    case 1:
      return "default<O1>";
    case 2:
      return small_kernel ? kSmallKernelPipeline : kKernelPipeline;
    default:
      return "default<O3>";
  }
}

absl::Status OptimizeModule(llvm::Module& module, const char* pipeline) {
  // The TargetMachine gives the pipeline its TTI (vector widths, costs).
  absl::StatusOr<PooledTargetMachine> tm = PooledTargetMachine::Acquire(/*fast=*/false);
  if (!tm.ok()) return tm.status();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  // LLVM's default pipelines vectorize at O2 and O3 only.
  const std::string_view text(pipeline);
  tuning.LoopVectorization = text != "default<O0>" && text != "default<O1>";
  tuning.SLPVectorization = tuning.LoopVectorization;
  llvm::PassBuilder pb(&**tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (llvm::Error e = pb.parsePassPipeline(mpm, pipeline)) {
    return absl::InternalError(ToString(std::move(e)));
  }
  mpm.run(module, mam);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EmitObject(llvm::Module& module, bool fast_codegen) {
  absl::StatusOr<PooledTargetMachine> tm = PooledTargetMachine::Acquire(fast_codegen);
  if (!tm.ok()) return tm.status();
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  llvm::MCContext* mc = nullptr;
  if ((**tm).addPassesToEmitMC(pm, mc, os)) {
    return absl::InternalError("the host target cannot emit machine code");
  }
  pm.run(module);
  return std::string(object.data(), object.size());
}

absl::StatusOr<std::string> EmitAssembly(llvm::Module& module, bool fast_codegen) {
  absl::StatusOr<PooledTargetMachine> tm = PooledTargetMachine::Acquire(fast_codegen);
  if (!tm.ok()) return tm.status();
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if ((**tm).addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the host target cannot emit assembly");
  }
  pm.run(module);
  return std::string(text.str());
}

absl::StatusOr<std::shared_ptr<JitCode>> JitCode::Link(absl::Span<const std::string> objects,
                                                      absl::Span<const std::string> symbols) {
  if (absl::Status s = HostStatus(); !s.ok()) return s;
  HostJit& host = Host();
  llvm::orc::LLJIT& jit = *host.jit;
  auto dylib = jit.createJITDylib(absl::StrCat("rk_code_", host.next_id++));
  if (!dylib) return absl::InternalError(ToString(dylib.takeError()));
  std::shared_ptr<JitCode> code(new JitCode);
  code->dylib_ = &*dylib;
  for (size_t i = 0; i < objects.size(); ++i) {
    std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
        objects[i], absl::StrCat("rk_kernel_object_", i));
    if (llvm::Error e = jit.addObjectFile(*dylib, std::move(buffer))) {
      return absl::InternalError(ToString(std::move(e)));
    }
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
  return code;
}

JitCode::~JitCode() {
  if (dylib_ == nullptr) return;
  auto* jd = static_cast<llvm::orc::JITDylib*>(dylib_);
  llvm::consumeError(Host().jit->getExecutionSession().removeJITDylib(*jd));
}

}  // namespace rk::compiler::cpu
