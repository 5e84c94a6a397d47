// `reprokit version`: what this binary is and what it can use.
#include <cstdio>

#include "base/json.h"
#include "compiler/support/cuda_probe.h"
#include "compiler/support/version.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

int RunVersion(absl::Span<const std::string> args) {
  bool json = false;
  FlagSet flags("version [--json]",
                "Prints the reprokit version, the git commit it was built from, the LLVM\n"
                "version and whether a CUDA driver and GPU are usable.");
  flags.Bool("json", &json, "print one JSON object");
  auto positional = flags.Parse(args);
  if (!positional.ok()) return ReportError("version", positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (!positional->empty()) {
    return ReportError("version", absl::InvalidArgumentError("takes no arguments"));
  }
  compiler::CudaProbe cuda = compiler::ProbeCuda();
  std::string cuda_text =
      cuda.usable ? "usable: " + cuda.device_name + " (driver " +
                        std::to_string(cuda.driver_version / 1000) + "." +
                        std::to_string(cuda.driver_version % 1000 / 10) + ", " +
                        std::to_string(cuda.device_count) + " device(s))"
                  : "not usable: " + cuda.reason;
  if (json) {
    Json doc = Json::MakeObject();
    doc.Set("reprokit", Json(compiler::ReprokitVersion()));
    doc.Set("git_commit", Json(compiler::GitCommit()));
    doc.Set("llvm", Json(compiler::LlvmVersion()));
    doc.Set("cuda_usable", Json(cuda.usable));
    doc.Set("gpu", Json(cuda.device_name));
    std::printf("%s\n", doc.DumpPretty().c_str());
  } else {
    std::printf("reprokit %s\ngit commit %s\nLLVM %s\nCUDA %s\n", compiler::ReprokitVersion(),
                compiler::GitCommit(), compiler::LlvmVersion(), cuda_text.c_str());
  }
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("version", "print versions, the git commit and whether a GPU is usable",
                    &RunVersion);

}  // namespace rk::tools
