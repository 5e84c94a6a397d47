// The configurations a campaign judges each graph with: the built-in
// compiler's (cpu, cpu-O0, cuda when a GPU answers) or external backends by
// name or path, on the devices after an '@' (NAME@cpu+cuda: one configuration
// per device), each with the --backend-opt keys its backend declares (a key
// none declares is refused before any graph).
//
// Tested by testing/fuzz/campaign_configs_test.cc, testing/fuzz/campaign_test.cc
// and tools/fuzz_backend_test.sh.
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_CONFIGS_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_CONFIGS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/oracle.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {

// One configuration: its name in stats and signatures ("cpu",
// "torch_inductor@cuda") and the options each graph is judged with.
struct CampaignConfig {
  std::string name;
  compiler::CompileOptions options;
};

// "NAME@cpu+cuda" -> {"NAME", {"cpu", "cuda"}}; no '@' (or one inside a
// path's folders): {spec, {}}.
std::pair<std::string, std::vector<std::string>> SplitDevices(const std::string& spec);

// Appends the configurations `options` names (cuda excepted: `want_gpu` says
// whether it is asked for, ProbeGpu adds it). Bad backend specs: the error.
absl::Status AddConfigs(const CampaignOptions& options, std::vector<CampaignConfig>& configs,
                        bool& want_gpu);

// Gives each external configuration the `backend_options` ("key:value") its
// backend declares (asking `oracle` for the hello); refuses a device the
// backend lacks (Unavailable) and a key no listed backend declares
// (InvalidArgument).
absl::Status CheckBackendOptions(repro::Oracle& oracle, const std::vector<std::string>& backend_options,
                                 std::vector<CampaignConfig>& configs);

// Judges relu on four elements on cuda with `oracle`: when that runs, appends
// the cuda configuration (with `faults`); a compile error (no driver, no GPU,
// no backend) leaves it out with the reason in `note`.
void ProbeGpu(repro::Oracle& oracle, const std::vector<std::string>& faults,
              std::vector<CampaignConfig>& configs, std::string& note);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_CONFIGS_H_
