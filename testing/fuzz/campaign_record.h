// Campaigns merged across machines (docs/FUZZING.md, "Merging shards").
//
// A shard that fuzzes against a shared store (`reprokit fuzz --store URL`)
// packs each finding's minimized bundle (repro/bundle/pack.h), puts the
// archive into the store and writes a campaign record: a small versioned
// JSON file (`<out>/campaign-record.json`, also put into the store) with the
// campaign's identity (seed, shard, reprokit version, faults, policy, graph
// sizes), its statistics and every finding with its signature and the
// digest of its bundle archive.
//
// MergeCampaigns reads the records of every shard, refuses records of a
// different campaign (seed, version, faults, policy, shard count) or a shard
// given twice, dedups findings by signature across shards and machines,
// keeps the smallest minimized bundle per signature (fewest nodes, then the
// smallest archive, then the lowest shard), fetches and unpacks it, emits
// its Bazel target and writes summary.json, summary.md and junit.xml with
// the same writers as a single-machine campaign (report.h).
//
// Tested by testing/fuzz/campaign_record_test.cc and, end to end with four
// processes against nginx, tools/fuzz_merge_test.sh.
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_RECORD_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/json.h"
#include "repro/store/store.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {

inline constexpr char kRecordFormat[] = "reprokit-fuzz-record";
inline constexpr int kRecordVersion = 1;
inline constexpr char kRecordFile[] = "campaign-record.json";

struct RecordedFinding {
  FindingRecord finding;
  std::string bundle_digest;  // sha256 of the packed minimized bundle; "" if none
  uint64_t bundle_bytes = 0;
};

struct CampaignRecord {
  std::string reprokit_version;
  uint64_t seed = 0;
  int shard_index = 0;
  int shard_count = 1;
  std::vector<std::string> faults;
  std::string policy;
  int nodes = 0;
  int64_t max_elements = 0;
  std::vector<std::string> configs;
  std::string gpu_note;
  CampaignStats stats;
  std::vector<RecordedFinding> findings;
  std::string source;  // where it was read from (messages)
};

Json RecordToJson(const CampaignRecord& record);
// `source` names the record in errors.
absl::StatusOr<CampaignRecord> RecordFromJson(const Json& json, const std::string& source);

// Packs and stores every finding's min/ bundle, then writes the record to
// `<out_dir>/campaign-record.json` and into `store`; returns the record's
// digest in the store.
absl::StatusOr<Digest> PublishCampaign(const CampaignSummary& summary, repro::Store& store);

// A record file, or `sha256:<hex>`: a record put into `store` by a shard.
absl::StatusOr<CampaignRecord> LoadRecord(const std::string& spec, repro::Store* store);

struct MergeOptions {
  std::string out_dir;
  bool emit = true;
  std::string workspace_dir;  // "": out_dir
  std::string package_prefix = "repros";
  std::string reprokit_root;  // for a fresh WORKSPACE; "": found
};

// Checks that the records are shards of one campaign; FailedPrecondition
// naming the record that differs.
absl::Status CheckSameCampaign(const std::vector<CampaignRecord>& records);

// The merged summary (also written to out_dir) of `records`, whose bundles
// are fetched from `store`.
absl::StatusOr<CampaignSummary> MergeCampaigns(const std::vector<CampaignRecord>& records,
                                               repro::Store& store, const MergeOptions& options);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_RECORD_H_
