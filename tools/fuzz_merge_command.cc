#include "tools/fuzz_merge_command.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/stopwatch.h"
#include "repro/store/open_store.h"
#include "testing/fuzz/campaign_record.h"
#include "testing/fuzz/report.h"
#include "tools/flags.h"
#include "tools/output_path.h"
#include "tools/store_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {

int RunFuzzMerge(absl::Span<const std::string> args) {
  constexpr char kName[] = "fuzz merge";
  std::string out, store_spec, workspace, package_prefix = "repros";
  bool no_emit = false, json = false;
  FlagSet flags(
      "fuzz merge RECORD... -o DIR [--store URL|DIR] [--workspace WS] [--no-emit]",
      "Merges the shards of one campaign: each RECORD is a shard's campaign-record.json\n"
      "(or its --out directory), or sha256:<hex> for a record in --store. Findings are\n"
      "deduplicated by signature across shards; the smallest minimized bundle of each\n"
      "is fetched from the store into DIR/findings/<name>/min and emitted; DIR gets\n"
      "summary.json, summary.md and junit.xml as from a single-machine campaign.\n"
      "Records of a different seed, version, fault set or shard count are refused.\n"
      "Exit: 0 no new finding, 1 new findings, 2 bad input, 125 store unreachable.");
  flags.String("out", &out, "directory for the merged report (new or empty)", 'o');
  flags.String("store", &store_spec, "the shared store the shards wrote to");
  flags.String("workspace", &workspace, "Bazel workspace to emit repros into (default: DIR)");
  flags.String("package-prefix", &package_prefix, "package path prefix for emitted repros");
  flags.Bool("no-emit", &no_emit, "do not emit Bazel packages");
  flags.Bool("json", &json, "print summary.json to stdout");
  absl::StatusOr<std::vector<std::string>> records = flags.Parse(args);
  if (!records.ok()) return ReportError(kName, records.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (out.empty()) return ReportError(kName, absl::InvalidArgumentError("-o DIR is required"));
  for (const auto& [flag, path] : {std::pair<const char*, const std::string*>{"-o", &out},
                                   {"--workspace", &workspace}}) {
    if (path->empty()) continue;
    if (absl::Status s = CheckOutputPath(flag, *path, OutputKind::kDirectory); !s.ok()) {
      return ReportError(kName, s);
    }
  }
  if (records->empty()) {
    return ReportError(kName, absl::InvalidArgumentError("expected at least one campaign record"));
  }
  Stopwatch watch;
  absl::StatusOr<std::unique_ptr<repro::Store>> store = repro::OpenStore(store_spec);
  if (!store.ok()) return ReportStoreError(kName, store.status());
  std::vector<fuzz::CampaignRecord> loaded;
  for (const std::string& spec : *records) {
    absl::StatusOr<fuzz::CampaignRecord> record = fuzz::LoadRecord(spec, store->get());
    if (!record.ok()) return ReportStoreError(kName, record.status());
    loaded.push_back(*std::move(record));
  }
  fuzz::MergeOptions options;
  options.out_dir = out;
  options.emit = !no_emit;
  options.workspace_dir = workspace;
  options.package_prefix = package_prefix;
  absl::StatusOr<fuzz::CampaignSummary> summary = fuzz::MergeCampaigns(loaded, **store, options);
  if (!summary.ok()) return ReportStoreError(kName, summary.status());
  if (json) {
    std::printf("%s\n", fuzz::SummaryJson(*summary).DumpPretty().c_str());
  } else {
    std::printf("merged %zu shards in %.2f s: %lld graphs, %zu findings (%lld new)\n",
                loaded.size(), watch.Lap() / 1000, static_cast<long long>(summary->stats.graphs),
                summary->findings.size(), static_cast<long long>(summary->new_findings));
    for (const fuzz::FindingRecord& f : summary->findings) {
      std::printf("  %s %s  %s  hits %lld  %s\n", f.new_this_run ? "NEW  " : "known",
                  f.name.c_str(), f.signature.c_str(), static_cast<long long>(f.hits),
                  f.test_label.c_str());
    }
    std::printf("reports: %s/summary.md, summary.json, junit.xml\n", out.c_str());
  }
  // Shards whose judgements mostly did not run add up to a campaign that
  // cannot test, as a single campaign does.
  if (const std::string why = fuzz::CannotTestReason(summary->stats, summary->configs);
      !why.empty()) {
    std::fprintf(stderr, "reprokit: fuzz merge: cannot test: %s\n", why.c_str());
    return kExitCannotTest;
  }
  return summary->new_findings > 0 ? kExitReproduces : kExitOk;
}

}  // namespace rk::tools
