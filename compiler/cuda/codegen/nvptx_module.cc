// The module-level half of the NVPTX backend (nvptx_emitter.h): a program's
// plan (kernel shapes, row groups) and the LLVM module of a range of its
// units, one NvptxKernel a unit, with the helpers the module defines.
#include "compiler/cuda/codegen/nvptx_emitter.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/codegen/nvptx_kernel.h"
#include "compiler/cuda/planning/inline_producers.h"
#include "compiler/cuda/planning/row_group.h"
#include "compiler/cuda/planning/split_rows.h"
#include "compiler/cuda/planning/wgmma_matmul.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler::cuda {

namespace {

// Truncates toward zero and wraps modulo 2^64 (NaN/Inf -> 0), as the host
// runtime's rk_double_to_i64_wrapped does.
void DefineDoubleToI64Wrapped(llvm::Module& module) {
  llvm::Function* fn = module.getFunction("rk_double_to_i64_wrapped");
  if (fn == nullptr || !fn->isDeclaration()) return;
  fn->setLinkage(llvm::Function::InternalLinkage);
  fn->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "entry", fn));
  llvm::Value* v = fn->getArg(0);
  auto c = [&](double x) { return llvm::ConstantFP::get(b.getDoubleTy(), x); };
  const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  llvm::Value* finite = b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v),
                                        c(HUGE_VAL));
  llvm::Value* t = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, v);
  llvm::Value* in_range = b.CreateAnd(b.CreateFCmpOGE(t, c(-two63)), b.CreateFCmpOLT(t, c(two63)));
  llvm::Value* safe_t = b.CreateSelect(in_range, t, c(0));
  llvm::Value* small = b.CreateFPToSI(safe_t, b.getInt64Ty());
  llvm::Value* q = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(t, c(1 / two64)));
  llvm::Value* m = b.CreateFSub(t, b.CreateFMul(q, c(two64)));
  llvm::Value* high = b.CreateFCmpOGE(m, c(two63));
  llvm::Value* low_part = b.CreateSelect(high, b.CreateFSub(m, c(two63)), m);
  llvm::Value* safe_low = b.CreateSelect(b.CreateAnd(finite, b.CreateNot(in_range)), low_part, c(0));
  llvm::Value* u = b.CreateFPToUI(safe_low, b.getInt64Ty());
  u = b.CreateSelect(high, b.CreateAdd(u, b.getInt64(INT64_MIN)), u);
  llvm::Value* r = b.CreateSelect(in_range, small, u);
  b.CreateRet(b.CreateSelect(finite, r, b.getInt64(0)));
}

// "sm_90a" -> 90; 0 when unreadable (the PTX compiler rejects such names).
int ArchNumber(const std::string& arch) {
  int number = 0;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) {
    number = number * 10 + (arch[i] - '0');
  }
  return number;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NvptxPlan>> PlanNvptx(const kernel::Program& original) {
  auto plan = std::make_unique<NvptxPlan>();
  // The GPU's own copy: cheap producers are recomputed where they are read.
  plan->program = original;
  InlineElementwiseProducers(plan->program);
  for (const kernel::Kernel& k : plan->program.kernels) {
    plan->shapes.push_back(AnalyzeKernel(plan->program, k));
    if (plan->shapes.back().form == KernelForm::kGridStride &&
        plan->shapes.back().local_bytes > 16384) {
      return absl::UnimplementedError(absl::StrCat(
          "cuda: kernel ", k.name, " (", k.detail, ") needs ", plan->shapes.back().local_bytes,
          " bytes of per-thread scratch"));
    }
  }
  plan->units = PlanRowGroups(plan->program, plan->shapes);
  return plan;
}

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitNvptxModule(const NvptxPlan& plan,
                                                              size_t first_unit, size_t end_unit,
                                                              const GpuOptions& options,
                                                              llvm::LLVMContext& context,
                                                              std::vector<KernelLaunch>& launches) {
  const kernel::Program& program = plan.program;
  auto module = std::make_unique<llvm::Module>("rk_gpu_program", context);
  llvm_ir::CodegenOptions codegen_options{options.fast_math, options.low_precision, 1, 1};
  codegen_options.native_bf16 = ArchNumber(options.arch) >= 80;
  codegen_options.tensor_cores = options.tensor_cores && ArchNumber(options.arch) >= 80;
  codegen_options.tf32 = codegen_options.tensor_cores && options.tf32;
  codegen_options.wgmma =
      codegen_options.tensor_cores && options.arch == "sm_90a" && WgmmaEnabled();
  codegen_options.approx_16bit_math = true;
  for (size_t u = first_unit; u < end_unit && u < plan.units.size(); ++u) {
    const std::vector<int>& group = plan.units[u];
    std::vector<kernel::Kernel> kernels;
    std::vector<KernelShape> group_shapes;
    for (int k : group) {
      kernels.push_back(program.kernels[k]);
      group_shapes.push_back(plan.shapes[k]);
    }
    const std::optional<SplitRows> split =
        group.size() == 1 ? PlanSplitRows(group_shapes[0]) : std::nullopt;
    NvptxKernel emitter(*module, codegen_options, program, std::move(kernels),
                        std::move(group_shapes));
    if (split) {
      KernelLaunch partials, combine;
      emitter.EmitSplit(*split, partials, combine);
      launches.push_back(std::move(partials));
      launches.push_back(std::move(combine));
      continue;
    }
    KernelLaunch launch;
    emitter.Emit(launch);
    launches.push_back(std::move(launch));
  }
  DefineDoubleToI64Wrapped(*module);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(*module, &os)) {
    return absl::InternalError(absl::StrCat("cuda codegen produced invalid LLVM IR: ", os.str()));
  }
  return module;
}

}  // namespace rk::compiler::cuda
