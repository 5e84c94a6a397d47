#include "minifier/minify_bundle.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph.h"
#include "minifier/checkpoint_writer.h"
#include "minifier/oracle_interestingness.h"
#include "minifier/script_interestingness.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/environment.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/signature.h"

namespace rk::minifier {
namespace {

using repro::Bundle;
using repro::BundleInput;

// The bundle for `candidate`, derived from `original`.
Bundle DerivedBundle(const repro::LoadedBundle& original, const Candidate& candidate,
                     const MinifyStats& stats, bool complete) {
  Bundle bundle;
  bundle.graph = candidate.graph;
  bundle.options = original.bundle.options;
  bundle.expected = original.bundle.expected;
  bundle.expected.outputs.clear();  // metrics of the original's outputs
  bundle.judged = original.bundle.judged;
  bundle.precision_check_deferred = original.bundle.precision_check_deferred;
  bundle.policy = original.bundle.policy;
  bundle.tol = original.bundle.tol;
  bundle.timeout_seconds = original.bundle.timeout_seconds;
  bundle.environment = repro::CollectEnvironment();
  if (const Json* backend = original.bundle.environment.Find("backend"); backend != nullptr) {
    bundle.environment.Set("backend", *backend);
  }
  for (compiler::NodeId id : candidate.graph.inputs()) {
    BundleInput input;
    input.name = candidate.graph.node(id).name;
    input.type = candidate.graph.type(id);
    input.source = BundleInput::Source::kBlob;
    bundle.inputs.push_back(std::move(input));
  }
  bundle.provenance = original.bundle.provenance;
  Json parent = Json::MakeObject();
  parent.Set("hash", original.hash);
  parent.Set("dir", original.dir);
  bundle.provenance.Set("parent", std::move(parent));
  bundle.provenance.Set("derived_by", "reprokit minify");
  bundle.provenance.Set("time", repro::UtcTimestamp());
  // An accuracy failure may now show at an upstream op (oracle_interestingness.h).
  if (absl::StatusOr<repro::Signature> now = repro::Signature::Parse(stats.signature);
      now.ok() && *now != original.bundle.expected.signature) {
    bundle.expected.signature = *now;
    if (!repro::MatchesExpected(original.bundle, *now)) {
      bundle.provenance.Set("signature_anchored_from",
                            original.bundle.expected.signature.ToString());
    }
    // A deferred miscompile/precision check that ran on this graph (the
    // result's final judgement, or --classify-each) is resolved.
    std::optional<repro::AccuracyDetail> detail = repro::ParseAccuracyDetail(*now);
    if (original.bundle.precision_check_deferred && detail.has_value() &&
        detail->subkind != "unknown") {
      bundle.expected.accuracy_subkind = detail->subkind;
      bundle.precision_check_deferred = false;
      bundle.provenance.Set("precision_check", "deferred at capture, run by reprokit minify");
    }
  }
  bundle.minimization = stats.ToJson();
  bundle.minimization.Set("complete", complete);
  bundle.minimization.Set("parent_hash", original.hash);
  return bundle;
}

absl::Status WriteDerived(const repro::LoadedBundle& original, const Candidate& candidate,
                          const MinifyStats& stats, bool complete, const std::string& dir,
                          std::string* hash = nullptr) {
  Bundle bundle = DerivedBundle(original, candidate, stats, complete);
  if (hash != nullptr) *hash = repro::BundleHash(bundle);
  return repro::WriteBundle(bundle, candidate.inputs, dir);
}

// The checkpoint in `dir` to resume from, if it derives from `original`.
absl::StatusOr<std::optional<Candidate>> LoadCheckpoint(const repro::LoadedBundle& original,
                                                        const std::string& dir) {
  if (!repro::IsBundleDir(dir)) return std::optional<Candidate>();
  absl::StatusOr<repro::LoadedBundle> checkpoint = repro::LoadBundle(dir);
  if (!checkpoint.ok()) return checkpoint.status();
  absl::StatusOr<std::string> parent =
      checkpoint->bundle.minimization.GetString("parent_hash");
  if (!parent.ok() || *parent != original.hash) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": not a minimization of ", original.dir, " (parent hash differs); remove it or "
        "choose another output directory"));
  }
  return std::optional<Candidate>(
      Candidate{checkpoint->bundle.graph, std::move(checkpoint->inputs)});
}

}  // namespace

namespace {

// "miscompile", "precision" or "unknown" of an accuracy signature; "" else.
std::string AccuracySubkind(const repro::Signature& signature) {
  std::optional<repro::AccuracyDetail> detail = repro::ParseAccuracyDetail(signature);
  return detail.has_value() ? detail->subkind : "";
}

}  // namespace

absl::StatusOr<MinifyBundleResult> MinifyBundle(const MinifyBundleOptions& options) {
  absl::StatusOr<repro::LoadedBundle> original = repro::LoadBundle(options.input_dir);
  if (!original.ok()) return original.status();
  if (!options.backend.empty() && options.backend != original->bundle.options.backend &&
      !(options.backend == "builtin" && !original->bundle.options.external())) {
    if (absl::Status s = original->bundle.options.Set("backend", options.backend); !s.ok()) {
      return s;
    }
    original->bundle.options.backend_options.clear();
  }
  const repro::Signature expected = original->bundle.expected.signature;
  if (options.test_script.empty() && !repro::IsFailure(expected.kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.input_dir, ": the bundle's expected verdict is '",
                     expected.ToString(), "', not a failure: nothing to minimize"));
  }
  MinifyBundleResult out;
  out.signature = expected.ToString();
  out.original_hash = original->hash;
  Candidate start{original->bundle.graph, original->inputs};
  if (options.resume) {
    absl::StatusOr<std::optional<Candidate>> checkpoint =
        LoadCheckpoint(*original, options.output_dir);
    if (!checkpoint.ok()) return checkpoint.status();
    if (checkpoint->has_value()) {
      start = **std::move(checkpoint);
      out.resumed = true;
    }
  }
  repro::Oracle::Config config;
  config.options.policy = original->bundle.policy;
  config.options.accuracy.tol = original->bundle.tol;
  // A hang bundle waits its captured timeout per hanging candidate, not 60 s.
  const double timeout = options.timeout_seconds > 0 ? options.timeout_seconds
                                                     : original->bundle.timeout_seconds;
  if (timeout > 0) config.limits.timeout = absl::Seconds(timeout);
  config.workers = std::max(1, options.jobs);
  config.isolate = options.isolate;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle = repro::Oracle::Create(config);
  if (!oracle.ok()) return oracle.status();
  // Names give nodes an identity across rebuilds, for the accuracy anchoring
  // (oracle_interestingness.h); a resumed checkpoint already has them.
  NameUnnamedNodes(start.graph);
  compiler::Graph anchor_graph = original->bundle.graph;
  NameUnnamedNodes(anchor_graph);
  OracleInterestingness oracle_interestingness(oracle->get(), original->bundle.options, expected,
                                               anchor_graph);
  // With a user's test, candidates are bundles in a scratch directory.
  std::string scratch;
  std::unique_ptr<ScriptInterestingness> script;
  if (!options.test_script.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "reprokit-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(absl::StrCat("cannot create a scratch directory: ",
                                              std::strerror(errno)));
    }
    scratch = pattern;
    script = std::make_unique<ScriptInterestingness>(
        options.test_script, scratch,
        [&](const Candidate& candidate, const std::string& dir) {
          return WriteDerived(*original, candidate, MinifyStats(), false, dir);
        },
        options.test_timeout_seconds);
  }
  struct ScratchCleanup {
    std::string dir;
    ~ScratchCleanup() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{scratch};
  Interestingness& interestingness =
      script ? static_cast<Interestingness&>(*script) : oracle_interestingness;
  // An external backend's compile costs seconds: the miscompile/precision
  // split (a second compile per failing candidate) is checked once, at the
  // end; so is the check a bundle's capture deferred.
  const bool deferred_at_capture = expected.kind == repro::VerdictKind::kAccuracy &&
                                   original->bundle.precision_check_deferred;
  if (deferred_at_capture) oracle_interestingness.AcceptAnySubkind();
  const bool defer = !script && expected.kind == repro::VerdictKind::kAccuracy &&
                     (original->bundle.options.external() || deferred_at_capture) &&
                     !options.classify_each;
  if (defer) oracle_interestingness.DeferClassification();

  MinifyOptions minify;
  minify.jobs = options.jobs;
  minify.time_limit_seconds = options.time_limit_seconds;
  minify.stop = options.stop;
  minify.fp64_values = expected.kind == repro::VerdictKind::kAccuracy;
  minify.costly_oracle = options.partitions || (!script && original->bundle.options.external());
  minify.on_progress = options.on_progress;
  // Checkpoints are written beside the search (checkpoint_writer.h): a
  // bundle of many cut inputs takes longer to sync than a cheap judgement.
  CheckpointWriter checkpoints([&](const Candidate& best, const MinifyStats& stats) {
    return WriteDerived(*original, best, stats, false, options.output_dir);
  });
  minify.on_accept = [&](const Candidate& best, const MinifyStats& stats) {
    checkpoints.Submit(best, stats);
  };
  const Candidate first_start = start;  // for a second search after drift
  absl::StatusOr<MinifyResult> result = Minify(std::move(start), interestingness, minify);
  if (absl::Status s = checkpoints.Flush(); !s.ok()) return s;
  if (!result.ok()) return result.status();
  out.stats = result->stats;
  if (!out.stats.signature.empty() && !script) out.signature = out.stats.signature;
  out.complete = !out.stats.interrupted && !out.stats.timed_out;
  if (defer) {
    absl::StatusOr<repro::Verdict> classified = oracle_interestingness.JudgeClassified(result->best);
    if (!classified.ok()) return classified.status();
    ++out.stats.oracle_calls;
    ++out.stats.oracle_calls_used;
    out.classified = true;
    // Drift: with subkinds assumed, an upstream accuracy failure of another
    // kind (a matmul's rounding: precision) can pass for the expected
    // miscompile. A bundle whose capture deferred the check accepts any
    // subkind, so there the start decides: a result that is precision while
    // the start is not has drifted.
    std::optional<repro::Signature> wanted;
    bool rerun = false;
    if (!oracle_interestingness.Matches(*classified)) {
      wanted = expected;
    } else if (deferred_at_capture && AccuracySubkind(classified->signature) == "precision") {
      absl::StatusOr<repro::Verdict> at_start = oracle_interestingness.JudgeClassified(first_start);
      if (!at_start.ok()) return at_start.status();
      ++out.stats.oracle_calls;
      ++out.stats.oracle_calls_used;
      if (at_start->kind == repro::VerdictKind::kAccuracy &&
          AccuracySubkind(at_start->signature) != "precision") {
        wanted = at_start->signature;
      }
    }
    if (wanted.has_value()) {
      out.classification_drift = absl::StrCat(
          "the result fails as ", classified->signature.ToString(), ", not as ",
          wanted->ToString(), " (subkinds were assumed while minimizing)");
      if (options.rerun_on_drift) {
        // The search again from the start, every failing candidate judged
        // with the fp64 recompile, the expected subkind required.
        OracleInterestingness checked(oracle->get(), original->bundle.options, *wanted,
                                      anchor_graph);
        absl::StatusOr<MinifyResult> again = Minify(first_start, checked, minify);
        if (absl::Status s = checkpoints.Flush(); !s.ok()) return s;
        if (again.ok()) {
          const int first_calls = out.stats.oracle_calls;
          const int first_used = out.stats.oracle_calls_used;
          result = *std::move(again);
          out.stats = result->stats;
          out.stats.oracle_calls += first_calls;
          out.stats.oracle_calls_used += first_used;
          out.complete = !out.stats.interrupted && !out.stats.timed_out;
          out.signature = out.stats.signature.empty() ? wanted->ToString() : out.stats.signature;
          out.stats.signature = out.signature;
          out.drift_rerun = absl::StrCat(out.classification_drift,
                                         "; minimized again with the check on every candidate");
          out.classification_drift.clear();
          rerun = true;
        } else {
          absl::StrAppend(&out.classification_drift, "; the search with the check on every "
                          "candidate failed: ", again.status().message());
        }
      } else {
        absl::StrAppend(&out.classification_drift, "; --classify-each checks every candidate");
      }
    }
    if (!rerun) {
      out.signature = classified->signature.ToString();
      out.stats.signature = out.signature;
    }
  }
  if (deferred_at_capture) {
    std::optional<repro::AccuracyDetail> detail;
    if (absl::StatusOr<repro::Signature> now = repro::Signature::Parse(out.stats.signature);
        now.ok()) {
      detail = repro::ParseAccuracyDetail(*now);
    }
    out.precision_check_resolved = detail.has_value() && detail->subkind != "unknown";
  }
  if (absl::Status s = WriteDerived(*original, result->best, out.stats, out.complete,
                                    options.output_dir, &out.minimized_hash);
      !s.ok()) {
    return s;
  }
  return out;
}

}  // namespace rk::minifier
