#include "repro/bundle/capturing_compile.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "compiler/ir/seeded_inputs.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/oracle/signature.h"

namespace rk::repro {
namespace {

constexpr int kDirHashChars = 12;

// Seed-0 seeded inputs stand in when the caller has none.
constexpr uint64_t kDefaultSeed = 0;

std::string SafeName(const std::string& name) {
  std::string out;
  for (char c : name) out += (absl::ascii_isalnum(c) || c == '_' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out = "graph" + out;
  return out;
}

Verdict VerdictOf(const absl::Status& compile_status) {
  Verdict v;
  if (compile_status.ok()) {
    v.kind = VerdictKind::kPass;
    v.signature = Signature{VerdictKind::kPass, ""};
    v.message = "compiled (not judged: no oracle ran)";
    return v;
  }
  v.kind = VerdictKind::kCompileError;
  v.signature = CompileErrorSignature(absl::StatusCodeToString(compile_status.code()),
                                      std::string(compile_status.message()));
  v.message = absl::StrCat("compile: ", compile_status.ToString());
  return v;
}

absl::Status CaptureCompile(const compiler::Graph& graph, const compiler::CompileOptions& options,
                            const std::vector<compiler::HostTensor>* inputs,
                            const absl::Status& compile_status, const std::string& dir) {
  std::vector<compiler::HostTensor> values =
      inputs != nullptr ? *inputs : compiler::SeededInputs(graph, kDefaultSeed);
  std::string target = CaptureBundleDir(dir, graph, options, values);
  if (IsBundleDir(target)) return absl::OkStatus();  // this very compile is captured already
  CaptureOptions capture_options;
  if (inputs == nullptr) capture_options.seed = kDefaultSeed;
  capture_options.judged = false;
  capture_options.captured_by = "REPROKIT_CAPTURE";
  absl::Status s = Capture(graph, values, options, VerdictOf(compile_status), target,
                           capture_options);
  if (s.ok()) std::fprintf(stderr, "reprokit: captured a bundle in %s\n", target.c_str());
  return s;
}

}  // namespace

absl::StatusOr<CaptureSettings> CaptureSettingsFromEnv() {
  CaptureSettings settings;
  const char* mode = std::getenv("REPROKIT_CAPTURE");
  std::string text = mode != nullptr ? mode : "";
  if (text.empty() || text == "off") {
    settings.mode = CaptureMode::kOff;
  } else if (text == "on_failure") {
    settings.mode = CaptureMode::kOnFailure;
  } else if (text == "always") {
    settings.mode = CaptureMode::kAlways;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "REPROKIT_CAPTURE='", text, "' is not one of off, on_failure, always"));
  }
  const char* dir = std::getenv("REPROKIT_CAPTURE_DIR");
  if (dir != nullptr && *dir != '\0') settings.dir = dir;
  return settings;
}

std::string CaptureBundleDir(const std::string& dir, const compiler::Graph& graph,
                             const compiler::CompileOptions& options,
                             const std::vector<compiler::HostTensor>& inputs) {
  Bundle key;
  key.graph = graph;
  key.options = options;
  key.options.dump_dir.clear();
  std::vector<compiler::NodeId> ids = graph.inputs();
  for (size_t i = 0; i < ids.size() && i < inputs.size(); ++i) {
    BundleInput in;
    in.name = graph.DisplayName(ids[i]);
    in.type = graph.type(ids[i]);
    in.sha256 = Sha256(absl::string_view(static_cast<const char*>(inputs[i].raw_data()),
                                         static_cast<size_t>(inputs[i].byte_size())));
    key.inputs.push_back(std::move(in));
  }
  return absl::StrCat(dir, "/", SafeName(graph.name()), "-",
                      BundleHash(key).substr(0, kDirHashChars));
}

absl::StatusOr<compiler::Executable> CompileWithCapture(
    const compiler::Graph& graph, const compiler::CompileOptions& options,
    const std::vector<compiler::HostTensor>* inputs, const CaptureSettings& settings) {
  absl::StatusOr<compiler::Executable> result = compiler::Compile(graph, options);
  bool wanted = settings.mode == CaptureMode::kAlways ||
                (settings.mode == CaptureMode::kOnFailure && !result.ok());
  if (wanted) {
    absl::Status s = CaptureCompile(graph, options, inputs, result.status(), settings.dir);
    if (!s.ok()) {
      std::fprintf(stderr, "reprokit: warning: could not capture a bundle in %s: %s\n",
                   settings.dir.c_str(), std::string(s.message()).c_str());
    }
  }
  return result;
}

absl::StatusOr<compiler::Executable> CompileWithCapture(
    const compiler::Graph& graph, const compiler::CompileOptions& options,
    const std::vector<compiler::HostTensor>* inputs) {
  absl::StatusOr<CaptureSettings> settings = CaptureSettingsFromEnv();
  if (!settings.ok()) {
    std::fprintf(stderr, "reprokit: warning: %s; not capturing\n",
                 std::string(settings.status().message()).c_str());
    return compiler::Compile(graph, options);
  }
  return CompileWithCapture(graph, options, inputs, *settings);
}

}  // namespace rk::repro
