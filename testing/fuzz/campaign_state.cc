#include "testing/fuzz/campaign_state.h"

#include <algorithm>
#include <filesystem>
#include <variant>

#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/leftovers.h"

namespace rk::fuzz {

namespace fs = std::filesystem;

namespace {

constexpr char kStateFile[] = "state.json";
constexpr char kFindingFile[] = "finding.json";
constexpr char kWriterFile[] = ".writer";

// Lenient readers: a missing or mistyped member reads as the type's zero
// instead of failing the load.
void ReadMember(const Json& j, std::string_view key, std::string& out) {
  absl::StatusOr<std::string> v = j.GetString(key);
  out = v.ok() ? *v : "";
}
void ReadMember(const Json& j, std::string_view key, int64_t& out) {
  absl::StatusOr<int64_t> v = j.GetInt(key);
  out = v.ok() ? *v : 0;
}
void ReadMember(const Json& j, std::string_view key, double& out) {
  absl::StatusOr<double> v = j.GetDouble(key);
  out = v.ok() ? *v : 0;
}
void ReadMember(const Json& j, std::string_view key, bool& out) {
  absl::StatusOr<bool> v = j.GetBool(key);
  out = v.ok() && *v;
}
// Seeds use all 64 bits; one written as a negative int64 reads back modulo 2^64.
void ReadMember(const Json& j, std::string_view key, uint64_t& out) {
  const Json* v = j.Find(key);
  if (v == nullptr || !v->is_number()) {
    out = 0;
  } else {
    out = v->is_uint() ? v->uint_value() : static_cast<uint64_t>(v->int_value());
  }
}

// The scalar members of a record, each with its key, in file order. Reading
// and writing go through the one table, so the two cannot drift apart.
template <typename Record>
struct ScalarMember {
  const char* key;
  std::variant<std::string Record::*, int64_t Record::*, uint64_t Record::*, double Record::*,
               bool Record::*>
      member;
};

template <typename Record, size_t N>
void WriteMembers(const Record& record, const ScalarMember<Record> (&members)[N], Json& j) {
  for (const ScalarMember<Record>& m : members) {
    std::visit([&](auto member) { j.Set(m.key, Json(record.*member)); }, m.member);
  }
}

template <typename Record, size_t N>
void ReadMembers(const Json& j, const ScalarMember<Record> (&members)[N], Record& record) {
  for (const ScalarMember<Record>& m : members) {
    std::visit([&](auto member) { ReadMember(j, m.key, record.*member); }, m.member);
  }
}

const ScalarMember<FindingRecord> kFindingMembers[] = {
    {"signature", &FindingRecord::signature},
    {"verdict_signature", &FindingRecord::verdict_signature},
    {"name", &FindingRecord::name},
    {"config", &FindingRecord::config},
    {"options", &FindingRecord::options},
    {"message", &FindingRecord::message},
    {"accuracy_subkind", &FindingRecord::accuracy_subkind},
    {"graph_seed", &FindingRecord::graph_seed},
    {"iteration", &FindingRecord::iteration},
    {"original_nodes", &FindingRecord::original_nodes},
    {"minimized_nodes", &FindingRecord::minimized_nodes},
    {"oracle_calls", &FindingRecord::oracle_calls},
    {"minimize_seconds", &FindingRecord::minimize_seconds},
    {"minimize_complete", &FindingRecord::minimize_complete},
    {"minimized_graph", &FindingRecord::minimized_graph},
    {"package", &FindingRecord::package},
    {"test_label", &FindingRecord::test_label},
    {"emit_error", &FindingRecord::emit_error},
    {"hits", &FindingRecord::hits},
    {"first_seen_seconds", &FindingRecord::first_seen_seconds},
    {"last_seen_seconds", &FindingRecord::last_seen_seconds},
};

const ScalarMember<CampaignStats> kStatsMembers[] = {
    {"graphs", &CampaignStats::graphs},
    {"generated", &CampaignStats::generated},
    {"valid", &CampaignStats::valid},
    {"nan_free", &CampaignStats::nan_free},
    {"judgements", &CampaignStats::judgements},
    {"failures", &CampaignStats::failures},
    {"duplicates", &CampaignStats::duplicates},
    {"known_hits", &CampaignStats::known_hits},
    {"minimizations", &CampaignStats::minimizations},
    {"unconfirmed", &CampaignStats::unconfirmed},
    {"unconfirmed_timeouts", &CampaignStats::unconfirmed_timeouts},
    {"seconds", &CampaignStats::seconds},
    {"generate_seconds", &CampaignStats::generate_seconds},
    {"judge_seconds", &CampaignStats::judge_seconds},
    {"minimize_seconds", &CampaignStats::minimize_seconds},
};

}  // namespace

Json FindingToJson(const FindingRecord& f) {
  Json j = Json::MakeObject();
  WriteMembers(f, kFindingMembers, j);
  return j;
}

absl::StatusOr<FindingRecord> FindingFromJson(const Json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("finding: not an object");
  FindingRecord f;
  ReadMembers(j, kFindingMembers, f);
  if (f.signature.empty()) return absl::InvalidArgumentError("finding: no signature");
  f.hits = std::max<int64_t>(1, f.hits);
  return f;
}

Json StatsToJson(const CampaignStats& s) {
  Json j = Json::MakeObject();
  WriteMembers(s, kStatsMembers, j);
  Json verdicts = Json::MakeObject();
  for (const auto& [key, n] : s.verdicts) verdicts.Set(key, static_cast<long long>(n));
  j.Set("verdicts", std::move(verdicts));
  for (const auto& [name, map] : {std::pair{"judge_errors", &s.judge_errors},
                                  std::pair{"not_applicable", &s.not_applicable}}) {
    Json counts = Json::MakeObject();
    for (const auto& [key, n] : *map) counts.Set(key, static_cast<long long>(n));
    j.Set(name, std::move(counts));
  }
  Json coverage = Json::MakeObject();
  for (compiler::Op op : compiler::kAllOps) {
    coverage.Set(compiler::OpName(op), static_cast<long long>(s.coverage.count(op)));
  }
  j.Set("coverage", std::move(coverage));
  Json op_dtypes = Json::MakeObject();
  for (const auto& [key, n] : s.op_dtypes) op_dtypes.Set(key, static_cast<long long>(n));
  j.Set("op_dtypes", std::move(op_dtypes));
  Json errors = Json::MakeArray();
  for (const std::string& e : s.errors) errors.push_back(e);
  j.Set("errors", std::move(errors));
  Json unconfirmed = Json::MakeArray();
  for (const std::string& u : s.unconfirmed_failures) unconfirmed.push_back(u);
  j.Set("unconfirmed_failures", std::move(unconfirmed));
  Json timeline = Json::MakeArray();
  for (const TimelinePoint& p : s.timeline) {
    Json x = Json::MakeArray();
    x.push_back(p.seconds);
    x.push_back(static_cast<long long>(p.graphs));
    x.push_back(static_cast<long long>(p.judgements));
    x.push_back(static_cast<long long>(p.failures));
    x.push_back(static_cast<long long>(p.findings));
    timeline.push_back(std::move(x));
  }
  j.Set("timeline", std::move(timeline));
  return j;
}

absl::Status StatsFromJson(const Json& j, CampaignStats* s) {
  if (!j.is_object()) return absl::InvalidArgumentError("state: not an object");
  ReadMembers(j, kStatsMembers, *s);
  if (const Json* v = j.Find("verdicts"); v != nullptr && v->is_object()) {
    for (const auto& [key, n] : v->object()) s->verdicts[key] = n.int_value();
  }
  for (const auto& [name, map] : {std::pair{"judge_errors", &s->judge_errors},
                                  std::pair{"not_applicable", &s->not_applicable}}) {
    if (const Json* v = j.Find(name); v != nullptr && v->is_object()) {
      for (const auto& [key, n] : v->object()) (*map)[key] = n.int_value();
    }
  }
  if (const Json* c = j.Find("coverage"); c != nullptr && c->is_object()) {
    for (const auto& [key, n] : c->object()) {
      if (std::optional<compiler::Op> op = compiler::ParseOp(key)) {
        s->coverage.counts[static_cast<int>(*op)] = n.int_value();
      }
    }
  }
  if (const Json* c = j.Find("op_dtypes"); c != nullptr && c->is_object()) {
    for (const auto& [key, n] : c->object()) {
      if (n.is_number()) s->op_dtypes[key] = static_cast<int64_t>(n.double_value());
    }
  }
  if (const Json* u = j.Find("unconfirmed_failures"); u != nullptr && u->is_array()) {
    for (const Json& x : u->array()) s->unconfirmed_failures.push_back(x.string_value());
  }
  if (const Json* e = j.Find("errors"); e != nullptr && e->is_array()) {
    for (const Json& x : e->array()) s->errors.push_back(x.string_value());
  }
  // [seconds, graphs, judgements, failures, findings] per point; absent in
  // state files written before the timeline existed.
  if (const Json* t = j.Find("timeline"); t != nullptr && t->is_array()) {
    for (const Json& x : t->array()) {
      if (!x.is_array() || x.size() != 5) continue;
      const Json::Array& a = x.array();
      bool numbers = true;
      for (const Json& v : a) numbers = numbers && v.is_number();
      if (!numbers) continue;
      s->timeline.push_back({a[0].double_value(), static_cast<int64_t>(a[1].double_value()),
                             static_cast<int64_t>(a[2].double_value()),
                             static_cast<int64_t>(a[3].double_value()),
                             static_cast<int64_t>(a[4].double_value())});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<FindingRecord>> LoadFindings(const std::string& out_dir) {
  std::vector<FindingRecord> findings;
  const fs::path dir = fs::path(out_dir) / "findings";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return findings;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const fs::path file = entry.path() / kFindingFile;
    if (!fs::is_regular_file(file, ec)) continue;
    absl::StatusOr<std::string> text = ReadFileToString(file.string());
    if (!text.ok()) return text.status();
    absl::StatusOr<Json> json = ParseJson(*text, {.filename = file.string()});
    if (!json.ok()) return json.status();
    absl::StatusOr<FindingRecord> f = FindingFromJson(*json);
    if (!f.ok()) return absl::DataLossError(absl::StrCat(file.string(), ": ", f.status().message()));
    findings.push_back(*std::move(f));
  }
  std::sort(findings.begin(), findings.end(),
            [](const FindingRecord& a, const FindingRecord& b) { return a.signature < b.signature; });
  return findings;
}

absl::Status SaveFinding(const std::string& out_dir, const FindingRecord& finding) {
  const fs::path file = fs::path(out_dir) / "findings" / finding.name / kFindingFile;
  return WriteFileAtomically(file.string(), FindingToJson(finding).DumpPretty() + "\n");
}

absl::Status MarkFindingWriter(const std::string& finding_dir) {
  std::error_code ec;
  fs::create_directories(finding_dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(finding_dir, ": ", ec.message()));
  return WriteFileAtomically((fs::path(finding_dir) / kWriterFile).string(),
                             absl::StrCat(::getpid(), "\n"));
}

void ClearFindingWriter(const std::string& finding_dir) {
  std::error_code ec;
  fs::remove(fs::path(finding_dir) / kWriterFile, ec);
}

std::vector<std::string> RemoveIncompleteFindings(const std::string& out_dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path(out_dir) / "findings", ec)) {
    if (!entry.is_directory(ec) || fs::exists(entry.path() / kFindingFile, ec)) continue;
    absl::StatusOr<std::string> text = ReadFileToString((entry.path() / kWriterFile).string());
    long pid = 0;
    if (!text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid) || pid <= 0 ||
        !ProcessIsGone(pid)) {
      continue;
    }
    std::error_code rm;
    fs::remove_all(entry.path(), rm);
    if (!rm) removed.push_back(entry.path().string());
  }
  return removed;
}

absl::StatusOr<CampaignStats> LoadStats(const std::string& out_dir) {
  CampaignStats stats;
  const std::string path = (fs::path(out_dir) / kStateFile).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return stats;
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Json> json = ParseJson(*text, {.filename = path});
  if (!json.ok()) return json.status();
  if (absl::Status s = StatsFromJson(*json, &stats); !s.ok()) return s;
  return stats;
}

absl::Status SaveStats(const std::string& out_dir, const CampaignStats& stats) {
  return WriteFileAtomically((fs::path(out_dir) / kStateFile).string(),
                             StatsToJson(stats).DumpPretty() + "\n");
}

absl::StatusOr<std::vector<std::string>> LoadKnownSignatures(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> known;
  const absl::string_view body = absl::StripLeadingAsciiWhitespace(*text);
  if (absl::StartsWith(body, "{")) {
    absl::StatusOr<Json> json = ParseJson(std::string(body), {.filename = path});
    if (!json.ok()) return json.status();
    if (const Json* f = json->Find("findings"); f != nullptr && f->is_array()) {
      for (const Json& x : f->array()) {
        std::string s;
        ReadMember(x, "signature", s);
        if (!s.empty()) known.push_back(s);
      }
    }
    return known;
  }
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    known.emplace_back(std::string(line));
  }
  return known;
}

absl::StatusOr<DoneLog> DoneLog::Open(const std::string& out_dir, int shard_index,
                                      int shard_count) {
  const fs::path path = fs::path(out_dir) / "corpus" /
                        absl::StrCat("shard-", shard_index, "-of-", shard_count, ".done");
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::set<int64_t> done;
  if (absl::StatusOr<std::string> text = ReadFileToString(path.string()); text.ok()) {
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      int64_t index = 0;
      if (absl::SimpleAtoi(line, &index)) done.insert(index);
    }
  }
  std::FILE* file = std::fopen(path.string().c_str(), "a");
  if (file == nullptr) return absl::PermissionDeniedError(absl::StrCat(path.string(), ": cannot open"));
  return DoneLog(std::move(done), file);
}

DoneLog::DoneLog(DoneLog&& other) noexcept : done_(std::move(other.done_)), file_(other.file_) {
  other.file_ = nullptr;
}

DoneLog::~DoneLog() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::Status DoneLog::Add(int64_t index) {
  done_.insert(index);
  if (std::fprintf(file_, "%lld\n", static_cast<long long>(index)) < 0 || std::fflush(file_) != 0) {
    return absl::DataLossError("cannot append to the corpus log");
  }
  return absl::OkStatus();
}

}  // namespace rk::fuzz
