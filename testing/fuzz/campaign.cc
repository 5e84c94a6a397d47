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
#include "base/leftovers.h"
#include "absl/time/time.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/options/compile_options.h"
#include "compiler/reference/interpreter.h"
#include "minifier/engine.h"
#include "minifier/interestingness.h"
#include "repro/bundle/bundle.h"
#include "repro/bundle/capture.h"
#include "repro/emit/emit.h"
#include "repro/emit/workspace.h"
#include "repro/oracle/oracle.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/fuzz/finding_signature.h"
#include "testing/fuzz/gradient_marks.h"
#include "repro/backend/locate.h"
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

struct Config {
  std::string name;
  CompileOptions options;
};

bool AllFinite(const std::vector<HostTensor>& tensors) {
  for (const HostTensor& t : tensors) {
    if (!compiler::IsFloat(t.dtype())) continue;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if (!std::isfinite(t.GetDouble(i))) return false;
    }
  }
  return true;
}

// The minimizer's question for the fuzzer: does the candidate still fail
// with the same kind (and, for accuracy, the same subkind)? The failing
// output's op and dtype may change, so a culprit upstream of the op that
// shows the error (relu feeding a mul) is cut down to itself, and findings
// dedup by root cause rather than by where the error surfaced.
class RootCauseInterestingness : public minifier::Interestingness {
 public:
  RootCauseInterestingness(repro::Oracle* oracle, CompileOptions options,
                           const repro::Verdict& expected)
      : oracle_(oracle), options_(std::move(options)), key_(Key(expected)) {}

  absl::StatusOr<minifier::InterestingnessResult> Judge(const minifier::Candidate& c) override {
    absl::StatusOr<repro::Verdict> v = oracle_->Judge(c.graph, c.inputs, options_);
    if (!v.ok()) return v.status();
    minifier::InterestingnessResult r;
    r.signature = v->signature.ToString();
    r.interesting = repro::IsFailure(v->kind) && Key(*v) == key_;
    r.drift = repro::IsFailure(v->kind) && !r.interesting;
    return r;
  }

  static std::string Key(const repro::Verdict& v) {
    if (v.kind == repro::VerdictKind::kAccuracy) {
      return absl::StrCat("accuracy:", v.accuracy_subkind);
    }
    if (v.kind == repro::VerdictKind::kNondeterministic) return "nondeterministic";
    return v.signature.ToString();
  }

 private:
  repro::Oracle* oracle_;
  CompileOptions options_;
  std::string key_;
};

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
  void ProbeGpu();
  // environment.backend for a bundle judged with `options` (null for the
  // built-in compiler).
  Json BackendRecord(const CompileOptions& options);
  bool NextIndex(int64_t* index);
  void Worker();
  void Process(int64_t index);
  void HandleFailure(const Graph& graph, const std::vector<HostTensor>& inputs, const Config& config,
                     const repro::Verdict& verdict, int64_t index, uint64_t seed);
  void Publish(FindingRecord record, const minifier::Candidate& best,
               const repro::Verdict& verdict, const Config& config,
               const std::string& parent_hash);
  void Error(const std::string& what);
  CampaignSummary SnapshotLocked() const;
  double CampaignSecondsLocked() const { return seconds_before_ + Since(start_); }
  void SampleTimelineLocked(double min_interval);
  void MaybeReportLocked(bool force);

  CampaignOptions options_;
  CampaignProgressFn progress_;
  std::unique_ptr<repro::Oracle> oracle_;
  std::vector<Config> configs_;
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

  CompileOptions base;
  base.faults = options_.faults;
  bool want_gpu = options_.gpu;
  if (options_.backends.empty()) {
    configs_.push_back({"cpu", base});
    if (options_.opt_levels) {
      CompileOptions o0 = base;
      o0.opt_level = 0;
      configs_.push_back({"cpu-O0", o0});
    }
  } else {
    want_gpu = false;
    for (const std::string& b : options_.backends) {
      if (b == "cpu" || b == "builtin") {
        configs_.push_back({"cpu", base});
      } else if (b == "cpu-O0") {
        CompileOptions o0 = base;
        o0.opt_level = 0;
        configs_.push_back({"cpu-O0", o0});
      } else if (b == "cuda") {
        want_gpu = true;
      } else {
        CompileOptions external;
        if (absl::Status s = external.Set("backend", repro::CanonicalBackendSpec(b)); !s.ok()) {
          return s;
        }
        external.backend_options = options_.backend_options;
        const size_t slash = b.find_last_of('/');
        configs_.push_back({slash == std::string::npos ? b : b.substr(slash + 1), external});
      }
    }
  }
  for (const Config& c : configs_) {
    if (absl::Status s = CompileOptions::Parse(c.options.ToString()).status(); !s.ok()) return s;
  }
  repro::Oracle::Config oracle;
  oracle.options.policy = options_.policy;
  oracle.limits.timeout = absl::Seconds(options_.judge_timeout_seconds);
  oracle.workers = options_.jobs;
  absl::StatusOr<std::unique_ptr<repro::Oracle>> created = repro::Oracle::Create(oracle);
  if (!created.ok()) return created.status();
  oracle_ = *std::move(created);
  // An external backend that is missing or broken stops the campaign here.
  for (const Config& c : configs_) {
    if (!c.options.external()) continue;
    absl::StatusOr<repro::BackendHello> hello = oracle_->Backend(c.options.backend);
    if (!hello.ok()) return hello.status();
  }
  if (want_gpu) ProbeGpu();
  return absl::OkStatus();
}

// Judges relu on four elements on cuda: a compile error (no driver, no GPU,
// no backend) means the configuration is skipped, with the reason.
void Campaign::ProbeGpu() {
  compiler::GraphBuilder b("probe");
  const compiler::NodeId x = b.Input("x", compiler::TensorType(compiler::DType::kF32, {4}));
  absl::StatusOr<compiler::NodeId> y = b.Unary(compiler::Op::kRelu, x);
  if (!y.ok() || !b.Output(*y).ok()) return;
  absl::StatusOr<Graph> g = b.Build();
  if (!g.ok()) return;
  CompileOptions cuda;
  cuda.device = "cuda";
  absl::StatusOr<repro::Verdict> v =
      oracle_->Judge(*g, {HostTensor::Full(g->type(x), 1.0)}, cuda);
  if (!v.ok()) {
    gpu_note_ = std::string(v.status().message());
  } else if (v->kind == repro::VerdictKind::kCompileError) {
    gpu_note_ = v->message;
  } else {
    cuda.faults = options_.faults;
    configs_.push_back({"cuda", cuda});
  }
}

bool Campaign::NextIndex(int64_t* index) {
  std::lock_guard<std::mutex> lock(mu_);
  while (true) {
    if (options_.stop != nullptr && options_.stop->load()) return false;
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
    for (const Config& config : configs_) {
      const Clock::time_point t1 = Clock::now();
      absl::StatusOr<repro::Verdict> verdict = oracle_->Judge(g->graph, inputs, config.options);
      {
        std::lock_guard<std::mutex> lock(mu_);
        stats_.judge_seconds += Since(t1);
        if (verdict.ok()) {
          ++stats_.judgements;
          ++stats_.verdicts[absl::StrCat(config.name, ":", std::string(repro::VerdictKindName(verdict->kind)))];
          stats_.failures += repro::IsFailure(verdict->kind);
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

Json Campaign::BackendRecord(const CompileOptions& options) {
  if (!options.external()) return Json();
  absl::StatusOr<repro::BackendHello> hello = oracle_->Backend(options.backend);
  if (!hello.ok()) return Json();
  Json j = Json::MakeObject();
  j["spec"] = options.backend;
  j["name"] = hello->name;
  j["version"] = hello->version;
  return j;
}

void Campaign::HandleFailure(const Graph& graph, const std::vector<HostTensor>& inputs,
                             const Config& config, const repro::Verdict& verdict, int64_t index,
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
  capture.backend = BackendRecord(config.options);
  if (absl::Status s = repro::Capture(graph, inputs, config.options, verdict, tmp + "/bundle", capture);
      !s.ok()) {
    Error(absl::StrCat("capture: ", s.message()));
    return;
  }
  const Clock::time_point t0 = Clock::now();
  minifier::Candidate best{graph, inputs};
  RootCauseInterestingness interestingness(oracle_.get(), config.options, verdict);
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
  if (absl::StatusOr<repro::Verdict> v = oracle_->Judge(best.graph, best.inputs, config.options);
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
                       const repro::Verdict& verdict, const Config& config,
                       const std::string& parent_hash) {
  const fs::path dir = fs::path(options_.out_dir) / "findings" / record.name;
  repro::CaptureOptions capture;
  capture.captured_by = "reprokit fuzz";
  capture.command_line = options_.command_line;
  capture.parent_hash = parent_hash;
  capture.policy = options_.policy;
  capture.backend = BackendRecord(config.options);
  absl::Status s = repro::Capture(best.graph, best.inputs, config.options, verdict,
                                  (dir / "min").string(), capture);
  if (!s.ok()) record.emit_error = absl::StrCat("capture: ", s.message());
  if (s.ok() && options_.emit) {
    repro::EmitRequest request;
    request.bundle_dir = (dir / "min").string();
    request.workspace_dir = options_.workspace_dir;
    request.package = absl::StrCat(options_.package_prefix, "/", record.name);
    request.name = record.name;
    request.create_workspace = true;
    request.reprokit_root = options_.reprokit_root;
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

CampaignSummary Campaign::SnapshotLocked() const {
  CampaignSummary summary;
  summary.options = options_;
  summary.stats = stats_;
  summary.run_seconds = Since(start_);
  summary.stats.seconds = seconds_before_ + summary.run_seconds;
  summary.run_graphs = run_graphs_;
  for (const Config& c : configs_) summary.configs.push_back(c.name);
  summary.gpu_note = gpu_note_;
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
