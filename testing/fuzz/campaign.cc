#include "testing/fuzz/campaign.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/leftovers.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/options/compile_options.h"
#include "compiler/reference/interpreter.h"
#include "minifier/engine.h"
#include "minifier/interestingness.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/signature.h"
#include "testing/fuzz/campaign_configs.h"
#include "testing/fuzz/campaign_finding.h"
#include "testing/fuzz/campaign_judging.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/fuzz/finding_signature.h"
#include "testing/fuzz/gradient_marks.h"
#include "testing/fuzz/judge_gate.h"
#include "testing/fuzz/report.h"

namespace rk::fuzz {

namespace fs = std::filesystem;
using compiler::CompileOptions;
using compiler::Graph;
using compiler::HostTensor;

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool AllFinite(const std::vector<HostTensor>& tensors) {
  for (const HostTensor& t : tensors) {
    if (!compiler::IsFloat(t.dtype())) continue;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if (!std::isfinite(t.GetDouble(i))) return false;
    }
  }
  return true;
}

// Per verdict signature: how many minimizations in a row found nothing new.
struct VerdictHistory {
  int since_new = 0;
  std::string last_finding;  // signature of the latest finding it led to
};

class Campaign {
 public:
  explicit Campaign(const CampaignOptions& options) : options_(options) {}

  absl::StatusOr<CampaignSummary> Run(const CampaignProgressFn& progress);

 private:
  absl::Status Setup();
  // Creates the output directory and loads what an earlier run left there.
  absl::Status OpenOutput();
  absl::Status SetBudgets();
  // Whether `graph` times out again judged alone with the confirmation
  // budget; `message` gets what happened.
  bool TimesOutAlone(const Graph& graph, const std::vector<HostTensor>& inputs,
                     const CampaignConfig& config, std::string* message) {
    return fuzz::TimesOutAlone(gate_, *patient_, budgets_, config.name, config.options, graph,
                               inputs, message);
  }
  bool NextIndex(int64_t* index);
  void Worker();
  void Process(int64_t index);
  void HandleFailure(const Graph& graph, const std::vector<HostTensor>& inputs, const CampaignConfig& config,
                     const repro::Verdict& verdict, int64_t index, uint64_t seed);
  void Publish(FindingRecord record, const minifier::Candidate& best,
               const repro::Verdict& verdict, const CampaignConfig& config,
               const std::string& parent_hash);
  void Error(const std::string& what);
  // Stops the campaign once most of at least 64 judgements failed to run:
  // another million graphs would not change that (exit 125).
  void GiveUpIfNothingRunsLocked();
  CampaignSummary SnapshotLocked() const;
  double CampaignSecondsLocked() const { return seconds_before_ + Since(start_); }
  void SampleTimelineLocked(double min_interval);
  void MaybeReportLocked(bool force);

  CampaignOptions options_;
  CampaignProgressFn progress_;
  std::unique_ptr<repro::Oracle> oracle_;
  // The confirmation of timeouts (one worker, several times the budget) and,
  // before the budgets are known, the calibration (time_budget.h).
  std::unique_ptr<repro::Oracle> patient_;
  JudgeGate gate_;
  std::vector<TimeBudget> budgets_;
  std::atomic<bool> give_up_{false};
  std::string stopped_early_;
  std::vector<CampaignConfig> configs_;
  bool want_gpu_ = false;
  std::string gpu_note_;
  std::set<std::string> known_;

  std::mutex mu_;
  CampaignStats stats_;
  std::map<std::string, FindingRecord> findings_;  // by signature
  std::map<std::string, VerdictHistory> history_;
  std::unique_ptr<DoneLog> done_;
  int64_t next_k_ = 0;
  int64_t run_graphs_ = 0;
  Clock::time_point start_;
  Clock::time_point last_report_;
  double seconds_before_ = 0;
};

absl::Status Campaign::Setup() {
  if (options_.out_dir.empty()) return absl::InvalidArgumentError("an output directory is needed");
  if (options_.shard_count < 1 || options_.shard_index < 0 ||
      options_.shard_index >= options_.shard_count) {
    return absl::InvalidArgumentError(absl::StrCat("bad shard ", options_.shard_index, "/",
                                                   options_.shard_count));
  }
  if (options_.iterations <= 0 && options_.time_seconds <= 0) {
    return absl::InvalidArgumentError("give a time limit or a number of iterations");
  }
  options_.jobs = std::max(1, options_.jobs);
  if (options_.workspace_dir.empty()) options_.workspace_dir = options_.out_dir;
  // The configurations, the backends, their options and budgets are checked
  // before the output directory is touched: a refused campaign changes nothing.
  if (absl::Status s = AddConfigs(options_, configs_, want_gpu_); !s.ok()) return s;
  for (const CampaignConfig& c : configs_) {
    if (absl::Status s = CompileOptions::Parse(c.options.ToString()).status(); !s.ok()) return s;
  }
  const BudgetRule& rule = options_.budget_rule;
  const bool fixed = options_.judge_timeout_seconds > 0;
  // Before the budgets are known: the calibration's oracle, under the
  // ceiling and as parallel as the campaign.
  repro::Oracle::Config patient;
  patient.options.policy = options_.policy;
  patient.limits.timeout =
      absl::Seconds(fixed ? options_.judge_timeout_seconds * rule.confirm_factor
                          : rule.ceiling_seconds);
  patient.workers = fixed ? 1 : options_.jobs;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> created = repro::Oracle::Create(patient);
  if (!created.ok()) return created.status();
  patient_ = *std::move(created);
  // An external backend that is missing or broken stops the campaign here.
  for (const CampaignConfig& c : configs_) {
    if (!c.options.external()) continue;
    absl::StatusOr<repro::BackendHello> hello = patient_->Backend(c.options.backend);
    if (!hello.ok()) return hello.status();
  }
  if (absl::Status s = CheckBackendOptions(*patient_, options_.backend_options, configs_);
      !s.ok()) {
    return s;
  }
  if (want_gpu_) ProbeGpu(*patient_, options_.faults, configs_, gpu_note_);
  if (absl::Status s = SetBudgets(); !s.ok()) return s;
  double budget = 0, confirm = 0;
  for (const TimeBudget& b : budgets_) {
    budget = std::max(budget, b.budget_seconds);
    confirm = std::max(confirm, b.confirm_seconds);
  }
  if (!fixed) {  // the confirmation: alone, with several times the budget
    patient_.reset();
    patient.limits.timeout = absl::Seconds(confirm);
    patient.workers = 1;
    created = repro::Oracle::Create(patient);
    if (!created.ok()) return created.status();
    patient_ = *std::move(created);
  }
  repro::Oracle::Config oracle;
  oracle.options.policy = options_.policy;
  oracle.limits.timeout = absl::Seconds(budget);
  oracle.workers = options_.jobs;
  created = repro::Oracle::Create(oracle);
  if (!created.ok()) return created.status();
  oracle_ = *std::move(created);
  return OpenOutput();
}

absl::Status Campaign::OpenOutput() {
  std::error_code ec;
  fs::create_directories(fs::path(options_.out_dir) / "findings", ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(options_.out_dir, ": ", ec.message()));
  // Temporary files of the atomic writes of a run killed with SIGKILL.
  RemoveTempFilesOfGoneProcesses(options_.out_dir);
  // Findings whose writer was killed before their finding.json: their
  // iterations are not done, so this run finds them again.
  RemoveIncompleteFindings(options_.out_dir);
  absl::StatusOr<CampaignStats> stats = LoadStats(options_.out_dir);
  if (!stats.ok()) return stats.status();
  stats_ = *std::move(stats);
  seconds_before_ = stats_.seconds;
  absl::StatusOr<std::vector<FindingRecord>> findings = LoadFindings(options_.out_dir);
  if (!findings.ok()) return findings.status();
  for (FindingRecord& f : *findings) findings_[f.signature] = std::move(f);
  known_.insert(options_.known_signatures.begin(), options_.known_signatures.end());
  absl::StatusOr<DoneLog> done =
      DoneLog::Open(options_.out_dir, options_.shard_index, options_.shard_count);
  if (!done.ok()) return done.status();
  done_ = std::make_unique<DoneLog>(*std::move(done));
  return absl::OkStatus();
}

absl::Status Campaign::SetBudgets() {
  const BudgetRule& rule = options_.budget_rule;
  const double fixed = options_.judge_timeout_seconds;
  std::vector<compiler::generator::GeneratedGraph> graphs;
  if (fixed <= 0) {
    compiler::generator::GeneratorOptions small = options_.generator;
    small.nodes = std::min(small.nodes, 4);
    const int count = std::max(3, options_.jobs);
    for (int i = 0; static_cast<int>(graphs.size()) < count && i < 4 * count; ++i) {
      absl::StatusOr<compiler::generator::GeneratedGraph> g =
          compiler::generator::Generate(GraphSeed(options_.seed ^ 0xca1b7a7eULL, i), small);
      if (g.ok() && compiler::Verify(g->graph).ok()) graphs.push_back(*std::move(g));
    }
  }
  for (const CampaignConfig& c : configs_) {
    if (fixed > 0 || graphs.empty()) {
      TimeBudget b;
      b.config = c.name;
      b.device = c.options.device;
      b.budget_seconds = fixed > 0 ? fixed : rule.floor_seconds;
      b.confirm_seconds = rule.confirm_factor * b.budget_seconds;
      budgets_.push_back(b);
      continue;
    }
    absl::StatusOr<TimeBudget> b = CalibrateBudget(*patient_, graphs, c.name, c.options,
                                                   options_.jobs, options_.seed, rule);
    if (!b.ok()) return b.status();
    budgets_.push_back(*std::move(b));
  }
  return absl::OkStatus();
}

bool Campaign::NextIndex(int64_t* index) {
  std::lock_guard<std::mutex> lock(mu_);
  while (true) {
    if (options_.stop != nullptr && options_.stop->load()) return false;
    if (give_up_.load()) return false;
    if (options_.time_seconds > 0 && Since(start_) >= options_.time_seconds) return false;
    if (options_.iterations > 0 && next_k_ >= options_.iterations) return false;
    const int64_t candidate = next_k_++ * options_.shard_count + options_.shard_index;
    if (!done_->Contains(candidate)) {
      *index = candidate;
      return true;
    }
  }
}

void Campaign::Worker() {
  int64_t index = 0;
  while (NextIndex(&index)) Process(index);
}

void Campaign::Error(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stats_.errors.size() < 20) stats_.errors.push_back(what);
}

void Campaign::Process(int64_t index) {
  const uint64_t seed = GraphSeed(options_.seed, index);
  const Clock::time_point t0 = Clock::now();
  absl::StatusOr<compiler::generator::GeneratedGraph> g =
      compiler::generator::Generate(seed, options_.generator);
  const bool valid = g.ok() && compiler::Verify(g->graph).ok();
  if (valid) g->graph = MarkForGradients(g->graph, options_.grad, seed);
  std::vector<HostTensor> inputs;
  bool nan_free = false;
  if (valid) {
    inputs = g->MakeInputs(seed);
    compiler::EvalOptions fp64;
    fp64.fp64 = true;
    absl::StatusOr<compiler::EvalResult> ref = compiler::Evaluate(g->graph, inputs, fp64);
    nan_free = ref.ok() && AllFinite(ref->outputs);
  }
  const double generate_seconds = Since(t0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.graphs;
    ++run_graphs_;
    stats_.generated += g.ok();
    stats_.valid += valid;
    stats_.nan_free += nan_free;
    stats_.generate_seconds += generate_seconds;
    if (g.ok()) {
      stats_.coverage.Add(g->graph);
      for (int i = 0; i < g->graph.num_nodes(); ++i) {
        const compiler::Node& n = g->graph.node(compiler::NodeId(i));
        ++stats_.op_dtypes[absl::StrCat(std::string(compiler::OpName(n.op)), ":",
                                        std::string(compiler::DTypeName(n.type.dtype)))];
      }
    }
  }
  if (!g.ok()) Error(std::string(g.status().message()));
  if (valid) {
    for (const CampaignConfig& config : configs_) {
      const Clock::time_point t1 = Clock::now();
      absl::StatusOr<repro::Verdict> verdict =
          GatedJudge(gate_, *oracle_, g->graph, inputs, config.options);
      {
        std::lock_guard<std::mutex> lock(mu_);
        stats_.judge_seconds += Since(t1);
        if (verdict.ok()) {
          RecordVerdict(stats_, config.name, *verdict);
        } else {
          ++stats_.judge_errors[config.name];
          GiveUpIfNothingRunsLocked();
        }
      }
      if (!verdict.ok()) {
        Error(absl::StrCat("seed ", seed, " ", config.name, ": ", verdict.status().message()));
      } else if (repro::IsFailure(verdict->kind)) {
        HandleFailure(g->graph, inputs, config, *verdict, index, seed);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = done_->Add(index); !s.ok() && stats_.errors.size() < 20) {
    stats_.errors.push_back(std::string(s.message()));
  }
  SampleTimelineLocked(1.0);
  MaybeReportLocked(false);
}

void Campaign::HandleFailure(const Graph& graph, const std::vector<HostTensor>& inputs,
                             const CampaignConfig& config, const repro::Verdict& verdict, int64_t index,
                             uint64_t seed) {
  const std::string raw = verdict.signature.ToString();
  {
    std::lock_guard<std::mutex> lock(mu_);
    VerdictHistory& h = history_[raw];
    if (h.since_new >= options_.max_minimize_per_verdict && findings_.count(h.last_finding)) {
      ++stats_.duplicates;
      ++findings_[h.last_finding].hits;
      findings_[h.last_finding].last_seen_seconds = CampaignSecondsLocked();
      (void)SaveFinding(options_.out_dir, findings_[h.last_finding]);
      return;
    }
    ++stats_.minimizations;
  }
  // A timeout under the campaign's load is a finding only if it times out
  // again alone with several times the budget, before and after minimizing.
  auto unconfirmed_timeout = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.unconfirmed;
    ++stats_.unconfirmed_timeouts;
    if (stats_.unconfirmed_failures.size() < 20) {
      stats_.unconfirmed_failures.push_back(
          absl::StrCat("seed ", seed, " ", config.name, ": ", raw, " (", what, ")"));
    }
  };
  const bool timeout = verdict.kind == repro::VerdictKind::kTimeout;
  if (std::string what; timeout && !TimesOutAlone(graph, inputs, config, &what)) {
    unconfirmed_timeout(what);
    return;
  }
  const std::string tmp = (fs::path(options_.out_dir) / "findings" /
                           absl::StrCat(".tmp-", index, "-", config.name)).string();
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (absl::Status s = MarkFindingWriter(tmp); !s.ok()) {
    Error(absl::StrCat("finding: ", s.message()));
    return;
  }
  repro::CaptureOptions capture;
  capture.captured_by = "reprokit fuzz";
  capture.command_line = options_.command_line;
  capture.policy = options_.policy;
  capture.backend = BackendRecord(*oracle_, config.options);
  if (absl::Status s = repro::Capture(graph, inputs, config.options, verdict, tmp + "/bundle", capture);
      !s.ok()) {
    Error(absl::StrCat("capture: ", s.message()));
    return;
  }
  const Clock::time_point t0 = Clock::now();
  minifier::Candidate best{graph, inputs};
  RootCauseInterestingness interestingness(oracle_.get(), &gate_, config.options, verdict);
  minifier::MinifyOptions minify;
  minify.time_limit_seconds = options_.minimize_seconds;
  minify.stop = options_.stop;
  minify.fp64_values = verdict.kind == repro::VerdictKind::kAccuracy;
  minify.reproduce_runs = 1;
  absl::StatusOr<minifier::MinifyResult> result = minifier::Minify(best, interestingness, minify);
  if (!result.ok() && IsUnconfirmedFailure(result.status(), verdict.kind)) {
    // Judged again, the graph did not fail: a timeout on a loaded machine or
    // an intermittent crash, not a finding (and no bundle of a passing graph).
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.unconfirmed;
    if (stats_.unconfirmed_failures.size() < 20) {
      stats_.unconfirmed_failures.push_back(absl::StrCat("seed ", seed, " ", config.name, ": ",
                                                         raw, " (", verdict.message, ")"));
    }
    fs::remove_all(tmp, ec);
    return;
  }
  FindingRecord record;
  if (result.ok()) {
    best = result->best;
    record.oracle_calls = result->stats.oracle_calls;
    record.minimize_complete = !result->stats.timed_out && !result->stats.interrupted;
  } else {
    Error(absl::StrCat("minify seed ", seed, ": ", result.status().message()));
  }
  repro::Verdict final_verdict = verdict;
  if (timeout) {
    if (std::string what; !TimesOutAlone(best.graph, best.inputs, config, &what)) {
      unconfirmed_timeout(absl::StrCat("minimized: ", what));
      fs::remove_all(tmp, ec);
      return;
    }
  } else if (absl::StatusOr<repro::Verdict> v =
                 GatedJudge(gate_, *oracle_, best.graph, best.inputs, config.options);
             v.ok() && RootCauseInterestingness::Key(*v) == RootCauseInterestingness::Key(verdict)) {
    final_verdict = *v;
  } else {
    best = {graph, inputs};
  }
  record.minimize_seconds = Since(t0);
  // Each external backend dedups its own findings.
  record.signature = absl::StrCat(config.options.external() ? config.name + ":" : "",
                                  FindingSignature(final_verdict.signature, best.graph));
  record.verdict_signature = final_verdict.signature.ToString();
  record.config = config.name;
  record.options = config.options.ToString();
  record.message = final_verdict.message;
  record.accuracy_subkind = final_verdict.accuracy_subkind;
  record.graph_seed = seed;
  record.iteration = index;
  record.original_nodes = graph.num_nodes() - graph.num_inputs();
  record.minimized_nodes = best.graph.num_nodes() - best.graph.num_inputs();
  record.minimized_graph = compiler::PrintInline(best.graph);
  record.new_this_run = true;
  std::string parent_hash;
  if (absl::StatusOr<repro::LoadedBundle> b = repro::LoadBundle(tmp + "/bundle"); b.ok()) {
    parent_hash = b->hash;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.minimize_seconds += record.minimize_seconds;
    VerdictHistory& h = history_[raw];
    const bool known = known_.count(record.signature) != 0;
    auto it = findings_.find(record.signature);
    if (known || it != findings_.end()) {
      ++stats_.duplicates;
      stats_.known_hits += known;
      ++h.since_new;
      if (it != findings_.end()) {
        ++it->second.hits;
        it->second.last_seen_seconds = CampaignSecondsLocked();
        h.last_finding = record.signature;
        (void)SaveFinding(options_.out_dir, it->second);
      }
      fs::remove_all(tmp, ec);
      return;
    }
    h.since_new = 0;
    h.last_finding = record.signature;
    std::string name = FindingName(final_verdict.signature, best.graph);
    for (int i = 2; fs::exists(fs::path(options_.out_dir) / "findings" / name, ec); ++i) {
      name = absl::StrCat(FindingName(final_verdict.signature, best.graph), "_", i);
    }
    record.name = name;
    record.first_seen_seconds = record.last_seen_seconds = CampaignSecondsLocked();
    findings_[record.signature] = record;
    // Reserve the directory before leaving the lock.
    fs::rename(tmp, fs::path(options_.out_dir) / "findings" / name, ec);
  }
  Publish(std::move(record), best, final_verdict, config, parent_hash);
}

void Campaign::Publish(FindingRecord record, const minifier::Candidate& best,
                       const repro::Verdict& verdict, const CampaignConfig& config,
                       const std::string& parent_hash) {
  const fs::path dir = fs::path(options_.out_dir) / "findings" / record.name;
  WriteFinding(options_, *oracle_, dir.string(), best, verdict, config.options, parent_hash,
               record);
  std::lock_guard<std::mutex> lock(mu_);
  FindingRecord& stored = findings_[record.signature];
  record.hits = stored.hits;
  record.last_seen_seconds = stored.last_seen_seconds;
  stored = record;
  if (absl::Status saved = SaveFinding(options_.out_dir, stored); !saved.ok()) {
    if (stats_.errors.size() < 20) stats_.errors.push_back(std::string(saved.message()));
  } else {
    ClearFindingWriter(dir.string());
  }
  MaybeReportLocked(true);
}

void Campaign::GiveUpIfNothingRunsLocked() {
  int64_t errors = 0, judged = 0;
  for (const auto& [config, n] : stats_.judge_errors) errors += n;
  for (const CampaignConfig& c : configs_) judged += CountsOf(stats_, c.name).judged;
  if (errors < 64 || errors <= 8 * judged || give_up_.load()) return;
  give_up_ = true;
  stopped_early_ = absl::StrCat("stopped after ", errors, " judgements that failed to run (",
                                judged, " judged)");
}

CampaignSummary Campaign::SnapshotLocked() const {
  CampaignSummary summary;
  summary.options = options_;
  summary.stats = stats_;
  summary.run_seconds = Since(start_);
  summary.stats.seconds = seconds_before_ + summary.run_seconds;
  summary.run_graphs = run_graphs_;
  for (const CampaignConfig& c : configs_) summary.configs.push_back(c.name);
  summary.gpu_note = gpu_note_;
  summary.budgets = budgets_;
  summary.stopped_early = stopped_early_;
  for (const auto& [sig, f] : findings_) {
    summary.findings.push_back(f);
    summary.new_findings += f.new_this_run;
  }
  return summary;
}

void Campaign::SampleTimelineLocked(double min_interval) {
  AddTimelinePoint(stats_,
                   {CampaignSecondsLocked(), stats_.graphs, stats_.judgements, stats_.failures,
                    static_cast<int64_t>(findings_.size())},
                   min_interval);
}

void Campaign::MaybeReportLocked(bool force) {
  if (!progress_) return;
  if (!force && Since(last_report_) < 0.25) return;
  last_report_ = Clock::now();
  progress_(SnapshotLocked());
}

absl::StatusOr<CampaignSummary> Campaign::Run(const CampaignProgressFn& progress) {
  progress_ = progress;
  if (absl::Status s = Setup(); !s.ok()) return s;
  start_ = Clock::now();
  last_report_ = start_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SampleTimelineLocked(0);
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < options_.jobs; ++i) threads.emplace_back([this] { Worker(); });
  for (std::thread& t : threads) t.join();
  std::lock_guard<std::mutex> lock(mu_);
  SampleTimelineLocked(0);
  CampaignSummary summary = SnapshotLocked();
  stats_.seconds = summary.stats.seconds;
  if (absl::Status s = SaveStats(options_.out_dir, stats_); !s.ok()) return s;
  if (absl::Status s = WriteReports(summary, options_.out_dir); !s.ok()) return s;
  return summary;
}

}  // namespace

bool IsUnconfirmedFailure(const absl::Status& minimized, repro::VerdictKind kind) {
  return absl::IsFailedPrecondition(minimized) && kind != repro::VerdictKind::kNondeterministic;
}

uint64_t GraphSeed(uint64_t campaign_seed, int64_t index) {
  uint64_t z = campaign_seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(index) + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

absl::StatusOr<CampaignSummary> RunCampaign(const CampaignOptions& options,
                                            const CampaignProgressFn& progress) {
  Campaign campaign(options);
  return campaign.Run(progress);
}

}  // namespace rk::fuzz
