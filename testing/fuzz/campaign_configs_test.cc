#include "testing/fuzz/campaign_configs.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

std::vector<std::string> Names(const std::vector<CampaignConfig>& configs) {
  std::vector<std::string> names;
  for (const CampaignConfig& c : configs) names.push_back(c.name);
  return names;
}

TEST(SplitDevicesTest, NameAndDevices) {
  EXPECT_EQ(SplitDevices("torch_inductor@cpu+cuda"),
            (std::pair<std::string, std::vector<std::string>>{"torch_inductor", {"cpu", "cuda"}}));
  EXPECT_EQ(SplitDevices("onnxruntime").second.size(), 0u);
  // An '@' inside a path's folders is part of the path.
  EXPECT_EQ(SplitDevices("/tmp/a@b/serve").first, "/tmp/a@b/serve");
}

TEST(AddConfigsTest, DefaultsAndBackends) {
  CampaignOptions options;
  std::vector<CampaignConfig> configs;
  bool want_gpu = false;
  ASSERT_TRUE(AddConfigs(options, configs, want_gpu).ok());
  EXPECT_EQ(Names(configs), (std::vector<std::string>{"cpu", "cpu-O0"}));
  EXPECT_EQ(configs[1].options.opt_level, 0);
  EXPECT_TRUE(want_gpu);

  options.backends = {"cpu", "/opt/x/serve@cpu+cuda", "cuda"};
  configs.clear();
  ASSERT_TRUE(AddConfigs(options, configs, want_gpu).ok());
  EXPECT_EQ(Names(configs), (std::vector<std::string>{"cpu", "serve@cpu", "serve@cuda"}));
  EXPECT_EQ(configs[2].options.device, "cuda");
  EXPECT_EQ(configs[2].options.backend, "/opt/x/serve");
  EXPECT_TRUE(want_gpu);  // "cuda" asks for the probe
}

}  // namespace
}  // namespace rk::fuzz
