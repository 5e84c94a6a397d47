#include "testing/fuzz/campaign_finding.h"

#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "repro/bundle/capture.h"
#include "repro/emit/emit.h"
#include "repro/emit/workspace.h"
#include "repro/triage/triage.h"

namespace rk::fuzz {

namespace fs = std::filesystem;

Json BackendRecord(repro::Oracle& oracle, const compiler::CompileOptions& options) {
  if (!options.external()) return Json();
  absl::StatusOr<repro::BackendHello> hello = oracle.Backend(options.backend);
  if (!hello.ok()) return Json();
  Json j = Json::MakeObject();
  j["spec"] = options.backend;
  j["name"] = hello->name;
  j["version"] = hello->version;
  return j;
}

std::string TriageFinding(repro::Oracle& oracle, const minifier::Candidate& best,
                          const compiler::CompileOptions& options) {
  std::optional<repro::BackendHello> hello;
  if (options.external()) {
    absl::StatusOr<repro::BackendHello> h = oracle.Backend(options.backend);
    if (!h.ok()) return absl::StrCat("not triaged: ", h.status().message());
    hello = *h;
  }
  const repro::Triage t = repro::RunTriage(
      best.graph, repro::PlanProbes(options, hello ? &*hello : nullptr),
      [&](const compiler::CompileOptions& o) { return oracle.Judge(best.graph, best.inputs, o); });
  return absl::StrCat(std::string(repro::TriageClassName(t.cls)), ": ", t.explanation);
}

void WriteFinding(const CampaignOptions& options, repro::Oracle& oracle, const std::string& dir_path,
                  const minifier::Candidate& best, const repro::Verdict& verdict,
                  const compiler::CompileOptions& config_options, const std::string& parent_hash,
                  FindingRecord& record) {
  const fs::path dir(dir_path);
  repro::CaptureOptions capture;
  capture.captured_by = "reprokit fuzz";
  capture.command_line = options.command_line;
  capture.parent_hash = parent_hash;
  capture.policy = options.policy;
  capture.backend = BackendRecord(oracle, config_options);
  absl::Status s = repro::Capture(best.graph, best.inputs, config_options, verdict,
                                  (dir / "min").string(), capture);
  if (!s.ok()) record.emit_error = absl::StrCat("capture: ", s.message());
  record.triage = TriageFinding(oracle, best, config_options);
  if (s.ok() && options.emit) {
    repro::EmitRequest request;
    request.bundle_dir = (dir / "min").string();
    request.workspace_dir = options.workspace_dir;
    request.package = absl::StrCat(options.package_prefix, "/", record.name);
    request.name = record.name;
    request.create_workspace = true;
    request.reprokit_root = options.reprokit_root;
    absl::Status root_status;
    if (request.reprokit_root.empty()) {
      absl::StatusOr<std::string> root = repro::FindReprokitRoot();
      if (root.ok()) request.reprokit_root = *root;
      root_status = root.status();
    }
    // Without reprokit's sources no workspace can be made: say that, not
    // what the workspace lacks as a consequence.
    absl::StatusOr<repro::EmitResult> emitted =
        root_status.ok() ? repro::EmitRepro(request) : absl::StatusOr<repro::EmitResult>(root_status);
    if (emitted.ok()) {
      record.package = request.package;
      record.test_label = emitted->test_label;
    } else {
      record.emit_error = std::string(emitted.status().message());
    }
  }
}

}  // namespace rk::fuzz
