// What a campaign keeps on disk so that rerunning it resumes: the iterations
// done per shard, the cumulative statistics and one finding.json per finding,
// plus the `--known` signature list format. Writes are atomic (temporary file
// + rename), so an interrupted campaign never leaves a torn file.
//
// Layout under the output directory:
//   corpus/shard-<i>-of-<n>.done   one global iteration index per line
//   state.json                     CampaignStats (cumulative)
//   findings/<name>/finding.json   FindingRecord
//   findings/<name>/.writer        pid of the writer, until finding.json exists
//
// Tested by testing/fuzz/campaign_state_test.cc.
#ifndef REPROKIT_TESTING_FUZZ_CAMPAIGN_STATE_H_
#define REPROKIT_TESTING_FUZZ_CAMPAIGN_STATE_H_

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/json.h"
#include "testing/fuzz/campaign.h"

namespace rk::fuzz {

Json FindingToJson(const FindingRecord& finding);
absl::StatusOr<FindingRecord> FindingFromJson(const Json& json);
Json StatsToJson(const CampaignStats& stats);
absl::Status StatsFromJson(const Json& json, CampaignStats* stats);

// Every findings/*/finding.json under `out_dir`, sorted by signature.
absl::StatusOr<std::vector<FindingRecord>> LoadFindings(const std::string& out_dir);
absl::Status SaveFinding(const std::string& out_dir, const FindingRecord& finding);

// A finding's directory holds `.writer` (the pid of the process writing it)
// from before it appears under findings/ until its finding.json is written.
// A campaign killed in between leaves the directory without finding.json and
// the iteration not done; RemoveIncompleteFindings, at the start of the next
// run, removes such directories whose writer is gone (a live writer, a shard
// running beside this one, is left alone), so the rerun records the finding
// again under its own name instead of "<name>_2". Returns the paths removed.
absl::Status MarkFindingWriter(const std::string& finding_dir);
void ClearFindingWriter(const std::string& finding_dir);
std::vector<std::string> RemoveIncompleteFindings(const std::string& out_dir);
// Empty stats when state.json does not exist.
absl::StatusOr<CampaignStats> LoadStats(const std::string& out_dir);
absl::Status SaveStats(const std::string& out_dir, const CampaignStats& stats);

// A --known file: one signature per line; blank lines and '#' comments
// ignored. A summary.json works too (its findings' signatures).
absl::StatusOr<std::vector<std::string>> LoadKnownSignatures(const std::string& path);

// The iterations of one shard that are done; appends are flushed at once.
class DoneLog {
 public:
  static absl::StatusOr<DoneLog> Open(const std::string& out_dir, int shard_index,
                                      int shard_count);
  DoneLog(DoneLog&& other) noexcept;
  DoneLog& operator=(DoneLog&&) = delete;
  ~DoneLog();

  bool Contains(int64_t index) const { return done_.count(index) != 0; }
  size_t size() const { return done_.size(); }
  absl::Status Add(int64_t index);

 private:
  DoneLog(std::set<int64_t> done, std::FILE* file) : done_(std::move(done)), file_(file) {}
  std::set<int64_t> done_;
  std::FILE* file_ = nullptr;
};

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_CAMPAIGN_STATE_H_
