#include "compiler/cuda/codegen/ptx_test_util.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/fusion/fusion.h"
#include "compiler/ir/parser.h"
#include "compiler/kernel/kernel_builder.h"
#include "compiler/passes/pass_manager.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {

absl::StatusOr<kernel::Program> LowerToKernelIr(const std::string& graph_text,
                                                const CompileOptions& options) {
  absl::StatusOr<Graph> graph = Parse(graph_text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  if (!context.ok()) return context.status();
  absl::StatusOr<Graph> optimized = RunGraphPipeline(*graph, *context);
  if (!optimized.ok()) return optimized.status();
  absl::StatusOr<fusion::FusionPlan> plan = fusion::PlanFusion(*optimized, *context);
  if (!plan.ok()) return plan.status();
  kernel::KernelOptions kernel_options{options.fast_math, options.low_precision, 1,
                                       &context->faults()};
  return kernel::BuildProgram(*optimized, *plan, kernel_options);
}

PtxProgram Ptx(const std::string& graph_text, const CompileOptions& options, GpuOptions gpu) {
  absl::StatusOr<kernel::Program> program = LowerToKernelIr(graph_text, options);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  gpu.fast_math = options.fast_math;
  gpu.low_precision = options.low_precision;
  gpu.tensor_cores = options.tensor_cores;
  gpu.tf32 = options.tf32;
  absl::StatusOr<PtxProgram> ptx = CompileToPtx(*program, gpu);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
  if (!ptx.ok()) return {};
  EXPECT_FALSE(absl::StrContains(ptx->ptx, ".extern .func")) << ptx->ptx;
  return *std::move(ptx);
}

std::string Unary(const std::string& op, const std::string& type) {
  return absl::StrCat("graph @g(%x: ", type, ") {\n %y = ", op, "(%x) : ", type,
                      "\n return %y\n}");
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string EntryText(const std::string& ptx, const std::string& name) {
  const size_t begin = ptx.find(".entry " + name + "(");
  if (begin == std::string::npos) return "";
  const size_t end = ptx.find("\n}\n", begin);
  return ptx.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::optional<std::string> PtxasErrors(const std::string& module, const std::string& arch) {
  std::string ptxas = "/usr/local/cuda/bin/ptxas";
  if (const char* cuda = std::getenv("CUDA_PATH")) ptxas = std::string(cuda) + "/bin/ptxas";
  if (!std::filesystem::exists(ptxas)) return std::nullopt;
  static std::atomic<int> next{0};
  const std::string path = absl::StrCat(::testing::TempDir(), "/ptxas_", next++, ".ptx");
  std::ofstream(path) << module;
  const std::string command = absl::StrCat(ptxas, " -arch=", arch, " -o /dev/null '", path, "' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot start " + ptxas;
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  const int status = pclose(pipe);
  if (status != 0 && output.empty()) output = absl::StrCat("ptxas exited with status ", status);
  return status == 0 ? "" : output;
}

EnvOverride::EnvOverride(const char* name, const char* value) : name_(name) {
  if (const char* v = std::getenv(name)) old_ = v;
  if (value == nullptr) {
    unsetenv(name);
  } else {
    setenv(name, value, 1);
  }
}

EnvOverride::~EnvOverride() {
  if (old_) {
    setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace rk::compiler::cuda
