// `reprokit fuzz --out DIR [--time 10m | --iterations N] ...`: a differential
// fuzz campaign over random graphs (testing/fuzz/campaign.h); see
// docs/FUZZING.md.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "repro/store/open_store.h"
#include "repro/oracle/preflight.h"
#include "testing/fuzz/campaign.h"
#include "testing/fuzz/campaign_record.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/fuzz/report.h"
#include "testing/report/report.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/fuzz_merge_command.h"
#include "tools/store_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "fuzz";

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

// "90", "90s", "10m", "2h" -> seconds.
absl::StatusOr<double> ParseDuration(const std::string& text) {
  if (text.empty()) return 0.0;
  double scale = 1;
  std::string number = text;
  switch (text.back()) {
    case 's': number.pop_back(); break;
    case 'm': scale = 60; number.pop_back(); break;
    case 'h': scale = 3600; number.pop_back(); break;
    default: break;
  }
  double value = 0;
  if (!absl::SimpleAtod(number, &value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--time: bad duration '", text,
                                                   "' (e.g. 90s, 10m, 2h)"));
  }
  return value * scale;
}

absl::Status ParseShard(const std::string& text, int* index, int* count) {
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], index) ||
      !absl::SimpleAtoi(parts[1], count) || *count < 1 || *index < 0 || *index >= *count) {
    return absl::InvalidArgumentError(absl::StrCat("--shard: expected i/n with 0 <= i < n, got '",
                                                   text, "'"));
  }
  return absl::OkStatus();
}

// Under `bazel test` with shard_count, Bazel names the shard in the
// environment and expects the status file to be touched.
void ShardFromBazel(int* index, int* count) {
  const char* total = std::getenv("TEST_TOTAL_SHARDS");
  const char* which = std::getenv("TEST_SHARD_INDEX");
  if (total == nullptr || which == nullptr) return;
  int t = 0, w = 0;
  if (!absl::SimpleAtoi(total, &t) || !absl::SimpleAtoi(which, &w) || t < 1 || w < 0 || w >= t) return;
  *count = t;
  *index = w;
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE")) std::ofstream touch(status);
}

int RunFuzz(absl::Span<const std::string> args) {
  if (!args.empty() && args[0] == "merge") return RunFuzzMerge(args.subspan(1));
  std::string store_spec;
  std::string out, time_text, shard, faults, known, workspace, package_prefix = "repros", policy = "torch";
  int64_t iterations = 0, seed = 1, jobs = 1, nodes = 10, max_elems = 1024;
  double minimize_seconds = 60;
  bool no_gpu = false, no_o0 = false, no_emit = false, json = false, quiet = false;
  FlagSet flags(
      "fuzz --out DIR [--time 10m] [--iterations N] [--seed S] [-j N] [--shard i/n] [flags]",
      "Generates random valid graphs and judges each: compiled on CPU vs the fp64\n"
      "reference, the same with all optional passes off (opt_level=0), and on CUDA when\n"
      "a GPU is usable. Each new failure is captured, minimized, signed (verdict +\n"
      "bucketed structure of the minimized graph), deduplicated against DIR's findings\n"
      "and --known, and emitted as a Bazel package DIR/repros/<name> (a fresh WORKSPACE\n"
      "is created in DIR unless --workspace names another). Rerunning with the same DIR\n"
      "resumes. Writes DIR/summary.json, summary.md, junit.xml and report.html\n"
      "(the page of `reprokit report DIR`).\n"
      "With --store, each finding's bundle and a campaign record go to a shared store\n"
      "for `reprokit fuzz merge` (docs/FUZZING.md, \"Merging shards\").\n"
      "Each configuration's time budget per judgement is calibrated at the start (a few\n"
      "small graphs, judged -j at a time); a timeout is a finding only if the minimized\n"
      "graph times out again alone with 4x the budget.\n"
      "Exit: 0 no new finding, 1 new findings, 2 usage error, 125 cannot test (most\n"
      "judgements failed to run, nothing was judged, or the store is unreachable).");
  flags.String("out", &out, "campaign directory (created; reused to resume)", 'o');
  flags.String("store", &store_spec, "shared store (directory or http(s):// remote cache) for "
                                     "the findings' bundles and the campaign record");
  flags.String("time", &time_text, "wall-clock budget, e.g. 90s, 10m, 2h");
  flags.Int("iterations", &iterations, "graphs of this shard to try (0: until --time)");
  flags.Int("seed", &seed, "campaign seed: graph k of shard i is a function of it");
  flags.Int("jobs", &jobs, "worker threads and isolated oracle workers", 'j');
  flags.String("shard", &shard, "i/n: run shard i of n (default: Bazel's TEST_SHARD_* or 0/1)");
  flags.Int("nodes", &nodes, "compute nodes per generated graph");
  flags.Int("max-elems", &max_elems, "elements per tensor, at most");
  std::string ops;
  bool no_mixed_dtypes = false;
  flags.String("ops", &ops, "generate only these ops, comma-separated (default: every op)");
  flags.Bool("no-mixed-dtypes", &no_mixed_dtypes, "every value f32 (no other floats, ints, bools)");
  flags.String("fault", &faults, "inject faults (testing only, docs/FAULTS.md), e.g. relu:accuracy");
  flags.String("known", &known, "file of known signatures (one per line, or a summary.json)");
  flags.Double("minimize-time", &minimize_seconds, "seconds to minimize each finding");
  std::string judge_timeout = "auto";
  flags.String("judge-timeout", &judge_timeout,
               "time budget per judgement: auto (calibrated per configuration at the start) "
               "or a duration, e.g. 30s");
  flags.String("policy", &policy, "accuracy policy (torch, strict, cosine)");
  std::string grad = "none";
  flags.String("grad", &grad,
               "judge gradients too: none, random (a random subset of each graph's float "
               "inputs) or all-float");
  flags.String("workspace", &workspace, "Bazel workspace to emit repros into (default: DIR)");
  flags.String("package-prefix", &package_prefix, "package path prefix for emitted repros");
  std::string backends;
  std::vector<std::string> backend_opts;
  flags.String("backends", &backends,
               "configurations to judge, comma-separated, instead of cpu,cpu-O0,cuda: cpu, "
               "cpu-O0, cuda, or external backends by NAME or PATH (docs/BACKENDS.md), on "
               "cpu or on the devices after '@': NAME@cuda, NAME@cpu+cuda");
  flags.Repeated("backend-opt", &backend_opts,
                 "key=value option for the external backends in --backends that declare "
                 "it (a key none declares is refused)");
  flags.Bool("no-gpu", &no_gpu, "skip the cuda configuration");
  flags.Bool("no-o0", &no_o0, "skip the opt_level=0 configuration");
  flags.Bool("no-emit", &no_emit, "do not emit Bazel packages");
  flags.Bool("quiet", &quiet, "no progress line");
  flags.Bool("json", &json, "print summary.json to stdout at the end");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kName, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (!positional->empty()) {
    return ReportError(kName, absl::InvalidArgumentError("unexpected positional arguments"));
  }
  if (out.empty()) return ReportError(kName, absl::InvalidArgumentError("--out DIR is required"));
  for (const auto& [flag, path] : {std::pair<const char*, const std::string*>{"--out", &out},
                                   {"--workspace", &workspace}}) {
    if (path->empty()) continue;
    if (absl::Status s = CheckOutputPath(flag, *path, OutputKind::kDirectory); !s.ok()) {
      return ReportError(kName, s);
    }
  }
  fuzz::CampaignOptions options;
  absl::StatusOr<double> seconds = ParseDuration(time_text);
  if (!seconds.ok()) return ReportError(kName, seconds.status());
  options.time_seconds = *seconds;
  options.iterations = iterations;
  if (options.time_seconds <= 0 && options.iterations <= 0) options.time_seconds = 600;
  ShardFromBazel(&options.shard_index, &options.shard_count);
  if (!shard.empty()) {
    if (absl::Status s = ParseShard(shard, &options.shard_index, &options.shard_count); !s.ok()) {
      return ReportError(kName, s);
    }
  }
  if (jobs < 1 || nodes < 1 || max_elems < 1) {
    return ReportError(kName, absl::InvalidArgumentError("-j, --nodes and --max-elems must be >= 1"));
  }
  options.out_dir = out;
  options.seed = static_cast<uint64_t>(seed);
  options.jobs = static_cast<int>(jobs);
  options.generator.nodes = static_cast<int>(nodes);
  options.generator.max_elements = max_elems;
  options.generator.mixed_dtypes = !no_mixed_dtypes;
  for (const absl::string_view name : absl::StrSplit(ops, ',', absl::SkipEmpty())) {
    std::optional<compiler::Op> op = compiler::ParseOp(std::string(name));
    if (!op) {
      return ReportError(kName, absl::InvalidArgumentError(
                                    absl::StrCat("--ops: unknown op '", name, "'")));
    }
    options.generator.ops.push_back(*op);
  }
  if (!faults.empty()) {
    options.faults = absl::StrSplit(faults, ',');
    // A typo would otherwise fail every compile and read as a "new finding".
    compiler::CompileOptions planted;
    planted.faults = options.faults;
    if (absl::Status s = repro::CheckFaultSpecs(planted); !s.ok()) {
      return ReportError(kName, absl::InvalidArgumentError(absl::StrCat("--fault: ", s.message())));
    }
  }
  if (!known.empty()) {
    absl::StatusOr<std::vector<std::string>> list = fuzz::LoadKnownSignatures(known);
    if (!list.ok()) return ReportError(kName, absl::InvalidArgumentError(list.status().message()));
    options.known_signatures = *list;
  }
  options.minimize_seconds = minimize_seconds;
  if (judge_timeout != "auto") {
    absl::StatusOr<double> budget = ParseDuration(judge_timeout);
    if (!budget.ok() || *budget <= 0) {
      return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                    "--judge-timeout: expected auto or a duration such as 30s, "
                                    "got '", judge_timeout, "'")));
    }
    options.judge_timeout_seconds = *budget;
  }
  options.policy = policy;
  if (grad != "none" && grad != "random" && grad != "all-float") {
    return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                  "--grad: expected none, random or all-float, got '", grad, "'")));
  }
  options.grad = grad;
  options.workspace_dir = workspace;
  options.package_prefix = package_prefix;
  options.gpu = !no_gpu;
  if (!backends.empty()) options.backends = absl::StrSplit(backends, ',', absl::SkipEmpty());
  for (const std::string& item : backend_opts) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ReportError("fuzz", absl::InvalidArgumentError(
                                     absl::StrCat("--backend-opt '", item, "': expected key=value")));
    }
    options.backend_options.push_back(absl::StrCat(item.substr(0, eq), ":", item.substr(eq + 1)));
  }
  options.opt_levels = !no_o0;
  options.emit = !no_emit;
  options.command_line = absl::StrCat("reprokit fuzz ", absl::StrJoin(args, " "));
  options.stop = &g_stop;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  const bool tty = !quiet && isatty(STDERR_FILENO);
  fuzz::CampaignProgressFn progress;
  if (tty) {
    progress = [](const fuzz::CampaignSummary& s) {
      std::fprintf(stderr, "\r\033[K%s", fuzz::ProgressLine(s).c_str());
      std::fflush(stderr);
    };
  }
  std::unique_ptr<repro::Store> store;
  if (!store_spec.empty()) {  // opened first: a bad URL fails before any fuzzing
    absl::StatusOr<std::unique_ptr<repro::Store>> opened = repro::OpenStore(store_spec);
    if (!opened.ok()) return ReportStoreError(kName, opened.status());
    store = *std::move(opened);
  }
  absl::StatusOr<fuzz::CampaignSummary> summary = fuzz::RunCampaign(options, progress);
  if (tty) std::fputs("\r\033[K", stderr);
  if (!summary.ok()) return ReportError(kName, summary.status());
  if (store != nullptr) {
    absl::StatusOr<Digest> record = fuzz::PublishCampaign(*summary, *store);
    if (!record.ok()) return ReportStoreError(kName, record.status());
    std::fprintf(stderr, "campaign record: %s/%s, in the store as sha256:%s\n", out.c_str(),
                 fuzz::kRecordFile, record->Hex().c_str());
  }
  // The HTML report beside summary.md; a campaign's findings are kept even
  // when it cannot be drawn (no Graphviz), so that is a warning.
  report::ReportOptions report_options;
  const std::string report_path = (std::filesystem::path(out) / "report.html").string();
  if (absl::StatusOr<report::InputKind> written =
          report::WriteReport(out, report_path, report_options);
      !written.ok()) {
    std::fprintf(stderr, "reprokit: fuzz: report.html: %s\n",
                 std::string(written.status().message()).c_str());
  }
  if (json) {
    std::printf("%s\n", fuzz::SummaryJson(*summary).DumpPretty().c_str());
  } else {
    std::printf("%s\n", fuzz::ProgressLine(*summary).c_str());
    for (const fuzz::FindingRecord& f : summary->findings) {
      std::printf("  %s %s  %s  hits %lld  %s\n", f.new_this_run ? "NEW  " : "known", f.name.c_str(),
                  f.signature.c_str(), static_cast<long long>(f.hits), f.test_label.c_str());
    }
    if (!summary->gpu_note.empty()) std::printf("cuda skipped: %s\n", summary->gpu_note.c_str());
    std::printf("reports: %s/summary.md, summary.json, junit.xml, report.html\n", out.c_str());
  }
  // A campaign whose judgements did not run says so and cannot pass.
  if (const std::string why = fuzz::CannotTestReason(summary->stats, summary->configs);
      !why.empty()) {
    std::fprintf(stderr, "reprokit: fuzz: cannot test: %s%s%s\n", why.c_str(),
                 summary->stopped_early.empty() ? "" : "; ", summary->stopped_early.c_str());
    for (size_t i = 0; i < summary->stats.errors.size() && i < 5; ++i) {
      std::fprintf(stderr, "  %s\n", summary->stats.errors[i].c_str());
    }
    return kExitCannotTest;
  }
  return summary->new_findings > 0 ? kExitReproduces : kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND(kName, "differential fuzzing campaign: generate, judge, minimize, dedup, emit",
                    RunFuzz);

}  // namespace rk::tools
