// Fuzz campaigns: generate graphs, judge them differentially, and turn every
// new failure into a minimized, deduplicated, emitted repro.
//
// For each graph (compiler/generator/generator.h) of this shard, on its generator
// RandomSpec inputs, the campaign asks repro::Oracle about each configuration:
//   cpu     compiled on CPU with the default options vs the fp64 reference;
//   cpu-O0  the same with every optional pass off (opt_level=0): a failure
//           only one of cpu / cpu-O0 shows points at the passes;
//   cuda    device=cuda vs fp64, when a GPU is usable (probed once through
//           the oracle; skipped cleanly, with the reason, when Unavailable).
// `faults` (docs/FAULTS.md) are added to every configuration.
//
// A failing verdict is captured as a bundle, minimized with the minifier's
// engine (bounded time per finding) on the same oracle, signed
// (finding_signature.h) and deduplicated against the findings already in the
// output directory and the `known` signatures. A new signature is written to
// <out>/findings/<name>/ (bundle/, min/, finding.json) and emitted as a Bazel
// package <workspace>/<package_prefix>/<name> (repro/emit). Once a verdict
// signature has been minimized `max_minimize_per_verdict` times without
// giving anything new, further failures with it count as duplicates without
// minimizing.
//
// Resume: <out>/corpus/shard-<i>-of-<n>.done lists the iterations done and
// <out>/state.json the cumulative statistics; rerunning with the same output
// directory skips what is done and keeps the findings. Iteration k of shard
// i/n is global index k*n+i and uses graph seed Mix(seed, index), so shards
// never overlap and a seed reproduces a campaign.
//
// Threads: `jobs` worker threads share one isolated oracle of `jobs`
// workers, created before the threads start (the fork rule).
//
// Its parts: campaign_configs.h (what each graph is judged with),
// campaign_judging.h (the gate, the minimizer's question, timeouts confirmed
// alone), campaign_stats.h (the counters), campaign_finding.h (a new
// finding's files), campaign_state.h (resuming), time_budget.h.
//
// Tested by testing/fuzz/campaign_test.cc (short) and
// testing/fuzz/campaign_acceptance_test.cc (manual, long).
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/generator/generator.h"
#include "repro/oracle/verdict.h"
#include "testing/fuzz/campaign_stats.h"
#include "testing/fuzz/time_budget.h"

namespace rk::fuzz {

struct CampaignOptions {
  std::string out_dir;
  double time_seconds = 0;  // 0: no limit
  int64_t iterations = 0;   // iterations of this shard; 0: until time_seconds
  uint64_t seed = 1;
  int jobs = 1;
  int shard_index = 0;
  int shard_count = 1;
  compiler::generator::GeneratorOptions generator;
  std::vector<std::string> faults;
  std::vector<std::string> known_signatures;  // FindingSignature strings
  bool opt_levels = true;  // the cpu-O0 configuration
  bool gpu = true;         // the cuda configuration, when usable
  // Non-empty: the configurations judged, instead of cpu, cpu-O0 and cuda:
  // cpu (or builtin), cpu-O0, cuda, or an external backend's name or path
  // (docs/BACKENDS.md), on cpu or on the devices after an '@'
  // ("onnxruntime@cuda", "torch_inductor@cpu+cuda": one configuration per
  // device, named NAME@DEVICE). Findings of an external backend are signed
  // with its configuration's name in front ("torch_inductor:accuracy:..."),
  // so each dedups its own.
  std::vector<std::string> backends;
  // "key:value", for the external backends that declare the key; a key no
  // listed backend declares is refused (InvalidArgument) before any graph.
  std::vector<std::string> backend_options;
  std::string policy = "torch";
  // Gradients judged too (repro/oracle/gradients.h): "none", "random" (each
  // graph marks a seeded random non-empty subset of its float inputs) or
  // "all-float". A graph whose joint graph cannot be built stays unmarked.
  std::string grad = "none";
  // Per judgement: > 0 a fixed budget for every configuration; 0 calibrated
  // per configuration at the start (time_budget.h, with `budget_rule`).
  double judge_timeout_seconds = 0;
  BudgetRule budget_rule;
  double minimize_seconds = 60;  // per finding
  int max_minimize_per_verdict = 3;
  bool emit = true;
  std::string workspace_dir;  // "": out_dir
  std::string package_prefix = "repros";
  std::string reprokit_root;  // for a fresh WORKSPACE; "": found
  std::string command_line;   // recorded in bundles
  const std::atomic<bool>* stop = nullptr;
};

// One deduplicated failure.
struct FindingRecord {
  std::string signature;          // FindingSignature
  std::string verdict_signature;  // the oracle's
  std::string name;               // directory and package name
  std::string config;             // cpu, cpu-O0, cuda
  std::string options;            // compile options, text form
  std::string message;
  std::string accuracy_subkind;
  // `reprokit triage` of the minimized graph (repro/triage/triage.h), for new
  // findings: "optimizer bug: fails only with optimizations from level basic".
  // Not kept in the campaign's state: a resumed campaign shows it for the
  // findings of its own run.
  std::string triage;
  uint64_t graph_seed = 0;
  int64_t iteration = 0;          // global index
  int64_t original_nodes = 0;
  int64_t minimized_nodes = 0;
  int64_t oracle_calls = 0;
  double minimize_seconds = 0;
  bool minimize_complete = false;
  std::string minimized_graph;    // text format
  std::string package;            // emitted package path, "" if not emitted
  std::string test_label;
  std::string emit_error;
  int64_t hits = 1;               // failures deduplicated into it, all runs
  // Campaign time (seconds, all runs) of the first and the latest hit.
  double first_seen_seconds = 0;
  double last_seen_seconds = 0;
  bool new_this_run = false;
};

// Whether a failure is left out of the findings as unconfirmed: minimizing it
// (`minimized`, the minifier's status) found that it did not fail when judged
// again (FailedPrecondition), and it is not a nondeterministic failure, which
// may pass any single judgement. CampaignStats::unconfirmed counts these.
bool IsUnconfirmedFailure(const absl::Status& minimized, repro::VerdictKind kind);

struct CampaignSummary {
  CampaignOptions options;
  CampaignStats stats;      // cumulative over every run in out_dir
  double run_seconds = 0;   // this run
  int64_t run_graphs = 0;   // this run
  std::vector<std::string> configs;
  std::string gpu_note;     // why the cuda configuration did not run
  std::vector<TimeBudget> budgets;  // this run's, per configuration
  // Set when the run stopped before its time or iterations because its
  // judgements kept failing to run.
  std::string stopped_early;
  std::vector<FindingRecord> findings;  // sorted by signature
  int64_t new_findings = 0;
};

// Progress callback, called from worker threads (serialized).
using CampaignProgressFn = std::function<void(const CampaignSummary&)>;

absl::StatusOr<CampaignSummary> RunCampaign(const CampaignOptions& options,
                                            const CampaignProgressFn& progress = nullptr);

// The graph seed of global iteration `index`.
uint64_t GraphSeed(uint64_t campaign_seed, int64_t index);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_H_
