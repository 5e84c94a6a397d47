#include "testing/fuzz/campaign_configs.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/ir/builder.h"
#include "repro/backend/locate.h"

namespace rk::fuzz {

std::pair<std::string, std::vector<std::string>> SplitDevices(const std::string& spec) {
  const size_t at = spec.rfind('@');
  if (at == std::string::npos || spec.find('/', at) != std::string::npos) return {spec, {}};
  std::vector<std::string> devices = absl::StrSplit(spec.substr(at + 1), '+', absl::SkipEmpty());
  return {spec.substr(0, at), devices};
}

absl::Status AddConfigs(const CampaignOptions& options, std::vector<CampaignConfig>& configs,
                        bool& want_gpu) {
  compiler::CompileOptions base;
  base.faults = options.faults;
  want_gpu = options.gpu;
  if (options.backends.empty()) {
    configs.push_back({"cpu", base});
    if (options.opt_levels) {
      compiler::CompileOptions o0 = base;
      o0.opt_level = 0;
      configs.push_back({"cpu-O0", o0});
    }
    return absl::OkStatus();
  }
  want_gpu = false;
  for (const std::string& b : options.backends) {
    if (b == "cpu" || b == "builtin") {
      configs.push_back({"cpu", base});
    } else if (b == "cpu-O0") {
      compiler::CompileOptions o0 = base;
      o0.opt_level = 0;
      configs.push_back({"cpu-O0", o0});
    } else if (b == "cuda") {
      want_gpu = true;
    } else {
      const auto [spec, devices] = SplitDevices(b);
      compiler::CompileOptions external;
      if (absl::Status s = external.Set("backend", repro::CanonicalBackendSpec(spec)); !s.ok()) {
        return s;
      }
      const size_t slash = spec.find_last_of('/');
      const std::string name = slash == std::string::npos ? spec : spec.substr(slash + 1);
      if (devices.empty()) configs.push_back({name, external});
      for (const std::string& device : devices) {
        compiler::CompileOptions on = external;
        on.device = device;
        configs.push_back({absl::StrCat(name, "@", device), on});
      }
    }
  }
  return absl::OkStatus();
}

// Each external backend gets the --backend-opt keys it declares; a key no
// listed backend declares would fail every judgement, so it is refused.
absl::Status CheckBackendOptions(repro::Oracle& oracle, const std::vector<std::string>& backend_options,
                                 std::vector<CampaignConfig>& configs) {
  std::vector<std::string> declared_by;  // "name: a, b"
  std::set<std::string> used;
  bool any_external = false;
  for (CampaignConfig& c : configs) {
    if (!c.options.external()) continue;
    any_external = true;
    absl::StatusOr<repro::BackendHello> hello = oracle.Backend(c.options.backend);
    if (!hello.ok()) return hello.status();
    if (!hello->SupportsDevice(c.options.device)) {
      return absl::UnavailableError(absl::StrCat(
          "backend '", hello->name, "' has no device '", c.options.device, "' (it has: ",
          absl::StrJoin(hello->devices, ", "), ")"));
    }
    std::vector<std::string> names;
    for (const repro::BackendOptionInfo& o : hello->options) names.push_back(o.name);
    declared_by.push_back(absl::StrCat(hello->name, " declares ",
                                       names.empty() ? "none" : absl::StrJoin(names, ", ")));
    for (const std::string& item : backend_options) {
      const std::string key = item.substr(0, item.find(':'));
      if (hello->FindOption(key) == nullptr) continue;
      c.options.backend_options.push_back(item);
      used.insert(key);
    }
  }
  for (const std::string& item : backend_options) {
    const std::string key = item.substr(0, item.find(':'));
    if (used.count(key)) continue;
    if (!any_external) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--backend-opt ", key, ": no external backend in --backends to take it"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "--backend-opt ", key, ": no backend in --backends declares this option (",
        absl::StrJoin(declared_by, "; "), ")",
        key == "device" ? "; the device is chosen with --backends NAME@DEVICE" : ""));
  }
  return absl::OkStatus();
}

void ProbeGpu(repro::Oracle& oracle, const std::vector<std::string>& faults,
              std::vector<CampaignConfig>& configs, std::string& note) {
  compiler::GraphBuilder b("probe");
  const compiler::NodeId x = b.Input("x", compiler::TensorType(compiler::DType::kF32, {4}));
  absl::StatusOr<compiler::NodeId> y = b.Unary(compiler::Op::kRelu, x);
  if (!y.ok() || !b.Output(*y).ok()) return;
  absl::StatusOr<compiler::Graph> g = b.Build();
  if (!g.ok()) return;
  compiler::CompileOptions cuda;
  cuda.device = "cuda";
  absl::StatusOr<repro::Verdict> v =
      oracle.Judge(*g, {compiler::HostTensor::Full(g->type(x), 1.0)}, cuda);
  if (!v.ok()) {
    note = std::string(v.status().message());
  } else if (v->kind == repro::VerdictKind::kCompileError) {
    note = v->message;
  } else {
    cuda.faults = faults;
    configs.push_back({"cuda", cuda});
  }
}

}  // namespace rk::fuzz
