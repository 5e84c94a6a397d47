#include "repro/bundle/capture.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/seeded_inputs.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/environment.h"

namespace rk::repro {

absl::Status Capture(const compiler::Graph& graph, const std::vector<compiler::HostTensor>& inputs,
                     const compiler::CompileOptions& options, const Verdict& verdict,
                     const std::string& dir, const CaptureOptions& capture_options) {
  Bundle bundle;
  bundle.graph = graph;
  bundle.options = options;
  bundle.options.dump_dir.clear();
  bundle.expected = verdict;
  bundle.judged = capture_options.judged;
  bundle.policy = capture_options.policy;
  bundle.tol = capture_options.tol;
  bundle.timeout_seconds = capture_options.timeout_seconds;
  bundle.precision_check_deferred = capture_options.precision_check_deferred &&
                                    verdict.kind == VerdictKind::kAccuracy &&
                                    verdict.accuracy_subkind == "unknown";

  std::vector<compiler::NodeId> ids = graph.inputs();
  if (ids.size() != inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph has ", ids.size(), " inputs, ", inputs.size(), " values given"));
  }
  std::vector<compiler::RandomSpec> specs = compiler::SeededInputSpecs(graph);
  for (size_t i = 0; i < ids.size(); ++i) {
    BundleInput in;
    in.name = graph.DisplayName(ids[i]);
    in.type = graph.type(ids[i]);
    if (capture_options.seed.has_value()) {
      in.source = BundleInput::Source::kRandom;
      in.seed = compiler::SeedForInput(*capture_options.seed, static_cast<int>(i));
      in.random = specs[i];
    }
    bundle.inputs.push_back(std::move(in));
  }

  bundle.environment = CollectEnvironment();
  if (!capture_options.backend.is_null()) bundle.environment["backend"] = capture_options.backend;
  bundle.provenance["created_at"] = UtcTimestamp();
  bundle.provenance["captured_by"] = capture_options.captured_by;
  bundle.provenance["command_line"] = capture_options.command_line.empty()
                                          ? CurrentCommandLine()
                                          : capture_options.command_line;
  bundle.provenance["parent_bundle"] =
      capture_options.parent_hash.empty() ? Json() : Json(capture_options.parent_hash);
  if (capture_options.seed.has_value()) bundle.provenance["seed"] = *capture_options.seed;
  if (!capture_options.source.is_null()) bundle.provenance["source"] = capture_options.source;
  return WriteBundle(bundle, inputs, dir);
}

}  // namespace rk::repro
