// Property (compiler/kernel/kernel_key.h): on random programs, kernels with
// equal KernelKeys lower to the same x86 module, byte for byte, under each
// set of codegen options, so the host compiler may look up compiled code by
// the key before it emits anything. Graphs of a few ops, one dtype and tiny
// shapes repeat kernels across programs with other buffer numbers (the
// property is not vacuous); default-sized mixed-dtype graphs give breadth.
#include <map>
#include <string>

#include "base/stopwatch.h"
#include "compiler/backend/lower_to_kernels.h"
#include "compiler/cpu/codegen/emit_module.h"
#include "compiler/cpu/codegen/jit.h"
#include "compiler/generator/generator.h"
#include "compiler/kernel/kernel_key.h"
#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"

namespace rk::compiler::cpu {
namespace {

std::string ModuleText(const kernel::Program& program, const kernel::Kernel& k,
                       const llvm_ir::CodegenOptions& codegen) {
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      EmitKernelModule(program, k, codegen, context, /*verify=*/true);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os, nullptr);
  return os.str();
}

// Returns how many kernels shared a key with an earlier one.
int CheckSeeds(const generator::GeneratorOptions& gen, int seeds, const CompileOptions& options) {
  std::map<std::string, std::string> module_of_key;
  int repeats = 0;
  const llvm_ir::CodegenOptions codegen{options.fast_math, options.low_precision,
                                        options.vector_width, options.threads};
  for (int seed = 1; seed <= seeds; ++seed) {
    absl::StatusOr<generator::GeneratedGraph> g = generator::Generate(seed, gen);
    if (!g.ok()) continue;
    Stopwatch watch;
    absl::StatusOr<KernelLowering> lowered =
        LowerToKernels(g->graph, options, /*tiled_matmul=*/true, watch);
    if (!lowered.ok()) continue;
    const kernel::Program& program = lowered->program;
    for (const kernel::Kernel& k : program.kernels) {
      const std::string key = kernel::KernelKey(program, k);
      const std::string text = ModuleText(program, k, codegen);
      auto [it, inserted] = module_of_key.try_emplace(key, text);
      if (inserted) continue;
      ++repeats;
      EXPECT_EQ(it->second, text) << "seed " << seed << ", kernel " << k.name;
    }
  }
  return repeats;
}

TEST(KernelKeyEmitTest, EqualKeysEmitEqualModules) {
  generator::GeneratorOptions small;
  small.nodes = 2;
  small.max_elements = 4;
  small.max_rank = 1;
  small.mixed_dtypes = false;
  small.ops = {Op::kExp, Op::kAdd, Op::kRelu, Op::kMul, Op::kReduceSum};
  CompileOptions fast;
  fast.fast_math = true;
  CompileOptions low;
  low.low_precision = true;
  for (const CompileOptions& options : {CompileOptions(), fast, low}) {
    SCOPED_TRACE(options.ToString());
    EXPECT_GT(CheckSeeds(small, 2000, options), 250);  // 521-522 when written
    CheckSeeds(generator::GeneratorOptions(), 300, options);
  }
}

}  // namespace
}  // namespace rk::compiler::cpu
