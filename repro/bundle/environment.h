// The environment a bundle was captured in, recorded in repro.json so that a
// reader can tell "fails on my machine" from "fails everywhere": reprokit
// version and git commit, LLVM version, OS kernel and architecture, CPU model
// (from /proc/cpuinfo), and the GPU, its NVIDIA driver and CUDA version when a
// GPU is usable. Never records host names, user names or home directories.
//
// Tested by repro/bundle/bundle_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_ENVIRONMENT_H_
#define REPROKIT_REPRO_BUNDLE_ENVIRONMENT_H_

#include <string>
#include <vector>

#include "base/json.h"

namespace rk::repro {

// {"reprokit_version", "git_commit", "llvm_version", "os", "arch",
//  "cpu_model", "cpu_count", "gpu": null | {"name", "count", "driver_version",
//  "cuda_version"}}.
Json CollectEnvironment();

// The first "model name" of /proc/cpuinfo ("unknown" when unreadable).
std::string CpuModel();

// The current UTC time as "2024-05-01T12:34:56Z".
std::string UtcTimestamp();

// `args` joined with spaces, each quoted when it holds shell metacharacters;
// a leading $HOME in any argument becomes "~" so user names stay out of
// bundles.
std::string CommandLineText(const std::vector<std::string>& args);

// This process's command line from /proc/self/cmdline, as CommandLineText.
std::string CurrentCommandLine();

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_ENVIRONMENT_H_
