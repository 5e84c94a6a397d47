#include "testing/fuzz/campaign_stats.h"

#include <regex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "repro/oracle/signature.h"

namespace rk::fuzz {

bool AddTimelinePoint(CampaignStats& stats, const TimelinePoint& point, double min_interval) {
  std::vector<TimelinePoint>& t = stats.timeline;
  if (!t.empty() && point.seconds - t.back().seconds < min_interval) return false;
  t.push_back(point);
  if (t.size() > kMaxTimelinePoints) {
    std::vector<TimelinePoint> thinned;
    for (size_t i = 0; i + 1 < t.size(); i += 2) thinned.push_back(t[i]);
    thinned.push_back(t.back());
    t = std::move(thinned);
  }
  return true;
}

ConfigCounts CountsOf(const CampaignStats& stats, const std::string& config) {
  ConfigCounts c;
  const std::string prefix = config + ":";
  for (const auto& [key, n] : stats.verdicts) {
    if (key.rfind(prefix, 0) != 0 || key.find(':', prefix.size()) != std::string::npos) continue;
    (key.substr(prefix.size()) == "cannot_judge" ? c.not_applicable : c.judged) += n;
  }
  if (auto it = stats.judge_errors.find(config); it != stats.judge_errors.end()) c.errors = it->second;
  return c;
}

std::string CannotTestReason(const CampaignStats& stats, const std::vector<std::string>& configs) {
  int64_t judged = 0, not_applicable = 0, errors = 0;
  for (const std::string& c : configs) {
    const ConfigCounts n = CountsOf(stats, c);
    judged += n.judged;
    not_applicable += n.not_applicable;
    errors += n.errors;
  }
  if (errors > judged + not_applicable) {
    return absl::StrCat("most judgements failed to run: ", errors, " errors, ", judged,
                        " judged, ", not_applicable, " not applicable");
  }
  if (judged == 0 && stats.valid > 0) {
    return absl::StrCat("no graph was judged: ", stats.valid, " valid graphs, ", not_applicable,
                        " not applicable, ", errors, " errors");
  }
  return "";
}

std::string NotApplicableReason(const std::string& message) {
  static const std::regex kAtNode(R"( \(at %[^)]*\))");
  static const std::regex kElement(R"( \(element [^)]*\))");
  static const std::regex kNode(R"(at %[^: ]+)");
  if (absl::StrContains(message, "does not support") ||
      absl::StartsWith(message, "undefined behavior at %")) {
    std::string r = std::regex_replace(message, kAtNode, "");
    r = std::regex_replace(r, kElement, "");
    r = std::regex_replace(r, kNode, "at %N");
    if (r.size() > 160) r = r.substr(0, 160) + "...";
    return r;
  }
  std::string r = repro::NormalizeMessage(message);
  if (r.size() > 160) r = r.substr(0, 160) + "...";
  return r;
}

void RecordVerdict(CampaignStats& stats, const std::string& config, const repro::Verdict& verdict) {
  ++stats.judgements;
  ++stats.verdicts[absl::StrCat(config, ":", std::string(repro::VerdictKindName(verdict.kind)))];
  stats.failures += repro::IsFailure(verdict.kind);
  if (verdict.kind != repro::VerdictKind::kCannotJudge) return;
  std::string key = absl::StrCat(config, ": ", NotApplicableReason(verdict.message));
  if (!stats.not_applicable.count(key) && stats.not_applicable.size() >= kMaxReasons) {
    key = absl::StrCat(config, ": other");
  }
  ++stats.not_applicable[key];
}

}  // namespace rk::fuzz
