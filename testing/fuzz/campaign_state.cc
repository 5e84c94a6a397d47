#include "testing/fuzz/campaign_state.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_split.h"

namespace rk::fuzz {

namespace fs = std::filesystem;

namespace {

constexpr char kStateFile[] = "state.json";
constexpr char kFindingFile[] = "finding.json";

std::string GetStr(const Json& j, std::string_view key) {
  absl::StatusOr<std::string> v = j.GetString(key);
  return v.ok() ? *v : "";
}
int64_t GetI(const Json& j, std::string_view key) {
  absl::StatusOr<int64_t> v = j.GetInt(key);
  return v.ok() ? *v : 0;
}
double GetD(const Json& j, std::string_view key) {
  absl::StatusOr<double> v = j.GetDouble(key);
  return v.ok() ? *v : 0;
}
bool GetB(const Json& j, std::string_view key) {
  absl::StatusOr<bool> v = j.GetBool(key);
  return v.ok() && *v;
}

}  // namespace

Json FindingToJson(const FindingRecord& f) {
  Json j = Json::MakeObject();
  j.Set("signature", f.signature);
  j.Set("verdict_signature", f.verdict_signature);
  j.Set("name", f.name);
  j.Set("config", f.config);
  j.Set("options", f.options);
  j.Set("message", f.message);
  j.Set("accuracy_subkind", f.accuracy_subkind);
  j.Set("graph_seed", static_cast<unsigned long long>(f.graph_seed));
  j.Set("iteration", static_cast<long long>(f.iteration));
  j.Set("original_nodes", static_cast<long long>(f.original_nodes));
  j.Set("minimized_nodes", static_cast<long long>(f.minimized_nodes));
  j.Set("oracle_calls", static_cast<long long>(f.oracle_calls));
  j.Set("minimize_seconds", f.minimize_seconds);
  j.Set("minimize_complete", f.minimize_complete);
  j.Set("minimized_graph", f.minimized_graph);
  j.Set("package", f.package);
  j.Set("test_label", f.test_label);
  j.Set("emit_error", f.emit_error);
  j.Set("hits", static_cast<long long>(f.hits));
  return j;
}

absl::StatusOr<FindingRecord> FindingFromJson(const Json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("finding: not an object");
  FindingRecord f;
  f.signature = GetStr(j, "signature");
  if (f.signature.empty()) return absl::InvalidArgumentError("finding: no signature");
  f.verdict_signature = GetStr(j, "verdict_signature");
  f.name = GetStr(j, "name");
  f.config = GetStr(j, "config");
  f.options = GetStr(j, "options");
  f.message = GetStr(j, "message");
  f.accuracy_subkind = GetStr(j, "accuracy_subkind");
  if (const Json* seed = j.Find("graph_seed"); seed != nullptr && seed->is_number()) {
    f.graph_seed = seed->is_uint() ? seed->uint_value() : static_cast<uint64_t>(seed->int_value());
  }
  f.iteration = GetI(j, "iteration");
  f.original_nodes = GetI(j, "original_nodes");
  f.minimized_nodes = GetI(j, "minimized_nodes");
  f.oracle_calls = GetI(j, "oracle_calls");
  f.minimize_seconds = GetD(j, "minimize_seconds");
  f.minimize_complete = GetB(j, "minimize_complete");
  f.minimized_graph = GetStr(j, "minimized_graph");
  f.package = GetStr(j, "package");
  f.test_label = GetStr(j, "test_label");
  f.emit_error = GetStr(j, "emit_error");
  f.hits = std::max<int64_t>(1, GetI(j, "hits"));
  return f;
}

Json StatsToJson(const CampaignStats& s) {
  Json j = Json::MakeObject();
  j.Set("graphs", static_cast<long long>(s.graphs));
  j.Set("generated", static_cast<long long>(s.generated));
  j.Set("valid", static_cast<long long>(s.valid));
  j.Set("nan_free", static_cast<long long>(s.nan_free));
  j.Set("judgements", static_cast<long long>(s.judgements));
  j.Set("failures", static_cast<long long>(s.failures));
  j.Set("duplicates", static_cast<long long>(s.duplicates));
  j.Set("known_hits", static_cast<long long>(s.known_hits));
  j.Set("minimizations", static_cast<long long>(s.minimizations));
  j.Set("seconds", s.seconds);
  j.Set("generate_seconds", s.generate_seconds);
  j.Set("judge_seconds", s.judge_seconds);
  j.Set("minimize_seconds", s.minimize_seconds);
  Json verdicts = Json::MakeObject();
  for (const auto& [key, n] : s.verdicts) verdicts.Set(key, static_cast<long long>(n));
  j.Set("verdicts", std::move(verdicts));
  Json coverage = Json::MakeObject();
  for (compiler::Op op : compiler::kAllOps) {
    coverage.Set(compiler::OpName(op), static_cast<long long>(s.coverage.count(op)));
  }
  j.Set("coverage", std::move(coverage));
  Json errors = Json::MakeArray();
  for (const std::string& e : s.errors) errors.push_back(e);
  j.Set("errors", std::move(errors));
  return j;
}

absl::Status StatsFromJson(const Json& j, CampaignStats* s) {
  if (!j.is_object()) return absl::InvalidArgumentError("state: not an object");
  s->graphs = GetI(j, "graphs");
  s->generated = GetI(j, "generated");
  s->valid = GetI(j, "valid");
  s->nan_free = GetI(j, "nan_free");
  s->judgements = GetI(j, "judgements");
  s->failures = GetI(j, "failures");
  s->duplicates = GetI(j, "duplicates");
  s->known_hits = GetI(j, "known_hits");
  s->minimizations = GetI(j, "minimizations");
  s->seconds = GetD(j, "seconds");
  s->generate_seconds = GetD(j, "generate_seconds");
  s->judge_seconds = GetD(j, "judge_seconds");
  s->minimize_seconds = GetD(j, "minimize_seconds");
  if (const Json* v = j.Find("verdicts"); v != nullptr && v->is_object()) {
    for (const auto& [key, n] : v->object()) s->verdicts[key] = n.int_value();
  }
  if (const Json* c = j.Find("coverage"); c != nullptr && c->is_object()) {
    for (const auto& [key, n] : c->object()) {
      if (std::optional<compiler::Op> op = compiler::ParseOp(key)) {
        s->coverage.counts[static_cast<int>(*op)] = n.int_value();
      }
    }
  }
  if (const Json* e = j.Find("errors"); e != nullptr && e->is_array()) {
    for (const Json& x : e->array()) s->errors.push_back(x.string_value());
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << contents;
    if (!out.good()) return absl::PermissionDeniedError(absl::StrCat(tmp, ": cannot write"));
  }
  fs::rename(tmp, path, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(path, ": ", ec.message()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<std::vector<FindingRecord>> LoadFindings(const std::string& out_dir) {
  std::vector<FindingRecord> findings;
  const fs::path dir = fs::path(out_dir) / "findings";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return findings;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const fs::path file = entry.path() / kFindingFile;
    if (!fs::is_regular_file(file, ec)) continue;
    absl::StatusOr<std::string> text = ReadWholeFile(file.string());
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

absl::StatusOr<CampaignStats> LoadStats(const std::string& out_dir) {
  CampaignStats stats;
  const std::string path = (fs::path(out_dir) / kStateFile).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return stats;
  absl::StatusOr<std::string> text = ReadWholeFile(path);
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
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> known;
  const absl::string_view body = absl::StripLeadingAsciiWhitespace(*text);
  if (absl::StartsWith(body, "{")) {
    absl::StatusOr<Json> json = ParseJson(std::string(body), {.filename = path});
    if (!json.ok()) return json.status();
    if (const Json* f = json->Find("findings"); f != nullptr && f->is_array()) {
      for (const Json& x : f->array()) {
        std::string s = GetStr(x, "signature");
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
  if (absl::StatusOr<std::string> text = ReadWholeFile(path.string()); text.ok()) {
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
