#include "testing/fuzz/campaign_record.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "compiler/support/version.h"
#include "repro/bundle/pack.h"
#include "repro/emit/emit.h"
#include "repro/emit/workspace.h"
#include "testing/fuzz/campaign_state.h"
#include "testing/fuzz/report.h"

namespace rk::fuzz {
namespace {

namespace fs = std::filesystem;

Json StringArray(const std::vector<std::string>& values) {
  Json a = Json::MakeArray();
  for (const std::string& v : values) a.push_back(v);
  return a;
}

absl::StatusOr<std::vector<std::string>> ReadStringArray(const Json& json, const char* key,
                                                         const std::string& source) {
  std::vector<std::string> out;
  const Json* a = json.Find(key);
  if (a == nullptr) return out;
  if (!a->is_array()) return absl::InvalidArgumentError(absl::StrCat(source, ": ", key, " is not an array"));
  for (const Json& v : a->array()) {
    if (!v.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": ", key, " holds a non-string"));
    }
    out.push_back(v.string_value());
  }
  return out;
}

std::string Shard(const CampaignRecord& r) { return absl::StrCat(r.shard_index, "/", r.shard_count); }

void MergeStats(const CampaignStats& in, CampaignStats& out) {
  out.graphs += in.graphs;
  out.generated += in.generated;
  out.valid += in.valid;
  out.nan_free += in.nan_free;
  out.judgements += in.judgements;
  out.failures += in.failures;
  out.duplicates += in.duplicates;
  out.known_hits += in.known_hits;
  out.minimizations += in.minimizations;
  out.unconfirmed += in.unconfirmed;
  out.unconfirmed_timeouts += in.unconfirmed_timeouts;
  for (const auto& [key, n] : in.judge_errors) out.judge_errors[key] += n;
  for (const auto& [key, n] : in.not_applicable) out.not_applicable[key] += n;
  for (const std::string& u : in.unconfirmed_failures) {
    if (out.unconfirmed_failures.size() < 20) out.unconfirmed_failures.push_back(u);
  }
  out.seconds = std::max(out.seconds, in.seconds);  // shards run side by side
  out.generate_seconds += in.generate_seconds;
  out.judge_seconds += in.judge_seconds;
  out.minimize_seconds += in.minimize_seconds;
  for (const auto& [key, n] : in.verdicts) out.verdicts[key] += n;
  out.coverage.Merge(in.coverage);
  for (const std::string& e : in.errors) {
    if (out.errors.size() < 20) out.errors.push_back(e);
  }
}

// Smaller is better: fewest minimized nodes, smallest archive, lowest shard.
bool Better(const RecordedFinding& a, int shard_a, const RecordedFinding& b, int shard_b) {
  if (a.bundle_digest.empty() != b.bundle_digest.empty()) return !a.bundle_digest.empty();
  if (a.finding.minimized_nodes != b.finding.minimized_nodes) {
    return a.finding.minimized_nodes < b.finding.minimized_nodes;
  }
  if (a.bundle_bytes != b.bundle_bytes) return a.bundle_bytes < b.bundle_bytes;
  return shard_a < shard_b;
}

}  // namespace

Json RecordToJson(const CampaignRecord& r) {
  Json j = Json::MakeObject();
  j.Set("format", kRecordFormat);
  j.Set("version", kRecordVersion);
  j.Set("reprokit_version", r.reprokit_version);
  Json c = Json::MakeObject();
  c.Set("seed", static_cast<unsigned long long>(r.seed));
  c.Set("shard", Shard(r));
  c.Set("faults", StringArray(r.faults));
  c.Set("policy", r.policy);
  c.Set("nodes", r.nodes);
  c.Set("max_elements", static_cast<long long>(r.max_elements));
  j.Set("campaign", std::move(c));
  j.Set("configs", StringArray(r.configs));
  j.Set("gpu_note", r.gpu_note);
  j.Set("stats", StatsToJson(r.stats));
  Json findings = Json::MakeArray();
  for (const RecordedFinding& f : r.findings) {
    Json e = Json::MakeObject();
    e.Set("finding", FindingToJson(f.finding));
    e.Set("bundle_sha256", f.bundle_digest);
    e.Set("bundle_bytes", static_cast<unsigned long long>(f.bundle_bytes));
    e.Set("new", f.finding.new_this_run);
    findings.push_back(std::move(e));
  }
  j.Set("findings", std::move(findings));
  return j;
}

absl::StatusOr<CampaignRecord> RecordFromJson(const Json& j, const std::string& source) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", why));
  };
  if (!j.is_object()) return bad("not a JSON object");
  absl::StatusOr<std::string> format = j.GetString("format");
  if (!format.ok() || *format != kRecordFormat) {
    return bad(absl::StrCat("not a campaign record (format is not ", kRecordFormat, ")"));
  }
  absl::StatusOr<int64_t> version = j.GetInt("version");
  if (!version.ok()) return bad("no version");
  if (*version != kRecordVersion) {
    return absl::FailedPreconditionError(absl::StrCat(source, ": record format version ", *version,
                                                      ", this reprokit reads version ",
                                                      kRecordVersion));
  }
  CampaignRecord r;
  r.source = source;
  absl::StatusOr<std::string> rv = j.GetString("reprokit_version");
  if (!rv.ok()) return bad("no reprokit_version");
  r.reprokit_version = *rv;
  const Json* c = j.Find("campaign");
  if (c == nullptr || !c->is_object()) return bad("no campaign object");
  const Json* seed = c->Find("seed");
  if (seed == nullptr || !seed->is_number()) return bad("campaign.seed is not a number");
  r.seed = seed->is_uint() ? seed->uint_value() : static_cast<uint64_t>(seed->int_value());
  absl::StatusOr<std::string> shard = c->GetString("shard");
  std::vector<std::string> parts = shard.ok() ? absl::StrSplit(*shard, '/') : std::vector<std::string>{};
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &r.shard_index) ||
      !absl::SimpleAtoi(parts[1], &r.shard_count) || r.shard_count < 1 || r.shard_index < 0 ||
      r.shard_index >= r.shard_count) {
    return bad("campaign.shard is not i/n");
  }
  absl::StatusOr<std::vector<std::string>> faults = ReadStringArray(*c, "faults", source);
  if (!faults.ok()) return faults.status();
  r.faults = *faults;
  r.policy = c->GetString("policy").value_or("");
  r.nodes = static_cast<int>(c->GetInt("nodes").value_or(0));
  r.max_elements = c->GetInt("max_elements").value_or(0);
  absl::StatusOr<std::vector<std::string>> configs = ReadStringArray(j, "configs", source);
  if (!configs.ok()) return configs.status();
  r.configs = *configs;
  r.gpu_note = j.GetString("gpu_note").value_or("");
  if (const Json* s = j.Find("stats"); s != nullptr) {
    if (absl::Status st = StatsFromJson(*s, &r.stats); !st.ok()) return bad(std::string(st.message()));
  }
  const Json* findings = j.Find("findings");
  if (findings == nullptr || !findings->is_array()) return bad("findings is not an array");
  for (const Json& e : findings->array()) {
    RecordedFinding f;
    const Json* fj = e.Find("finding");
    if (fj == nullptr) return bad("a finding without its record");
    absl::StatusOr<FindingRecord> finding = FindingFromJson(*fj);
    if (!finding.ok()) return bad(std::string(finding.status().message()));
    f.finding = *std::move(finding);
    f.bundle_digest = e.GetString("bundle_sha256").value_or("");
    if (!f.bundle_digest.empty() && !Digest::IsHex(f.bundle_digest)) {
      return bad(absl::StrCat("finding ", f.finding.name, ": bundle_sha256 is not 64 hex"));
    }
    f.finding.new_this_run = e.GetBool("new").value_or(false);
    const Json* bytes = e.Find("bundle_bytes");
    if (bytes != nullptr && bytes->is_number()) f.bundle_bytes = bytes->uint_value();
    r.findings.push_back(std::move(f));
  }
  return r;
}

absl::StatusOr<Digest> PublishCampaign(const CampaignSummary& summary, repro::Store& store) {
  const CampaignOptions& o = summary.options;
  CampaignRecord record;
  record.reprokit_version = compiler::ReprokitVersion();
  record.seed = o.seed;
  record.shard_index = o.shard_index;
  record.shard_count = o.shard_count;
  record.faults = o.faults;
  record.policy = o.policy;
  record.nodes = o.generator.nodes;
  record.max_elements = o.generator.max_elements;
  record.configs = summary.configs;
  record.gpu_note = summary.gpu_note;
  record.stats = summary.stats;
  for (const FindingRecord& f : summary.findings) {
    RecordedFinding rf;
    rf.finding = f;
    const fs::path min = fs::path(o.out_dir) / "findings" / f.name / "min";
    std::error_code ec;
    if (fs::is_directory(min, ec)) {
      const std::string archive = TempPathIn(o.out_dir, absl::StrCat(f.name, ".tar.zst"));
      absl::StatusOr<repro::PackStats> packed = repro::PackBundle(min.string(), archive);
      absl::StatusOr<Digest> digest =
          packed.ok() ? store.PutFile(archive) : absl::StatusOr<Digest>(packed.status());
      ::unlink(archive.c_str());
      if (!digest.ok()) {
        return absl::Status(digest.status().code(), absl::StrCat("finding ", f.name, ": ",
                                                                 digest.status().message()));
      }
      rf.bundle_digest = digest->Hex();
      rf.bundle_bytes = packed->archive_bytes;
    }
    record.findings.push_back(std::move(rf));
  }
  const std::string text = RecordToJson(record).DumpPretty() + "\n";
  if (absl::Status s = WriteFileAtomically((fs::path(o.out_dir) / kRecordFile).string(), text);
      !s.ok()) {
    return s;
  }
  return store.Put(text);
}

absl::StatusOr<CampaignRecord> LoadRecord(const std::string& spec, repro::Store* store) {
  std::string text;
  if (absl::StartsWith(spec, "sha256:")) {
    if (store == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(spec, ": a record in the store needs --store"));
    }
    absl::StatusOr<Digest> digest = Digest::FromHex(spec.substr(7));
    if (!digest.ok()) return absl::InvalidArgumentError(absl::StrCat(spec, ": not a sha256 digest"));
    absl::StatusOr<std::string> bytes = store->Get(*digest);
    if (!bytes.ok()) return bytes.status();
    text = *std::move(bytes);
  } else {
    std::string path = spec;
    std::error_code ec;
    if (fs::is_directory(path, ec)) path = (fs::path(path) / kRecordFile).string();
    absl::StatusOr<std::string> bytes = ReadFileToString(path);
    if (!bytes.ok()) return absl::NotFoundError(absl::StrCat(path, ": cannot read the record"));
    text = *std::move(bytes);
  }
  JsonParseOptions parse;
  parse.filename = spec;
  parse.max_bytes = 64 << 20;
  absl::StatusOr<Json> json = ParseJson(text, parse);
  if (!json.ok()) return absl::InvalidArgumentError(json.status().message());
  return RecordFromJson(*json, spec);
}

absl::Status CheckSameCampaign(const std::vector<CampaignRecord>& records) {
  if (records.empty()) return absl::InvalidArgumentError("no campaign records to merge");
  const CampaignRecord& first = records[0];
  std::set<int> shards;
  for (const CampaignRecord& r : records) {
    auto differs = [&](const std::string& what, const std::string& mine, const std::string& theirs) {
      return absl::FailedPreconditionError(absl::StrCat(
          r.source, " is from a different campaign: ", what, " ", mine, ", but ", first.source,
          " has ", theirs));
    };
    if (r.seed != first.seed) {
      return differs("seed", std::to_string(r.seed), std::to_string(first.seed));
    }
    if (r.reprokit_version != first.reprokit_version) {
      return differs("reprokit version", r.reprokit_version, first.reprokit_version);
    }
    if (r.shard_count != first.shard_count) {
      return differs("shard count", std::to_string(r.shard_count),
                     std::to_string(first.shard_count));
    }
    if (r.faults != first.faults) {
      return differs("faults", absl::StrJoin(r.faults, ","), absl::StrJoin(first.faults, ","));
    }
    if (r.policy != first.policy) return differs("policy", r.policy, first.policy);
    if (r.nodes != first.nodes || r.max_elements != first.max_elements) {
      return differs("graph size", absl::StrCat(r.nodes, "/", r.max_elements),
                     absl::StrCat(first.nodes, "/", first.max_elements));
    }
    if (!shards.insert(r.shard_index).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(r.source, ": shard ", Shard(r), " is given twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CampaignSummary> MergeCampaigns(const std::vector<CampaignRecord>& records,
                                               repro::Store& store, const MergeOptions& options) {
  if (absl::Status s = CheckSameCampaign(records); !s.ok()) return s;
  std::error_code ec;
  const fs::path findings_dir = fs::path(options.out_dir) / "findings";
  if (fs::exists(findings_dir, ec) && !fs::is_empty(findings_dir, ec)) {
    return absl::AlreadyExistsError(absl::StrCat(
        findings_dir.string(), " is not empty: merge into a new directory"));
  }
  const CampaignRecord& first = records[0];
  CampaignSummary summary;
  CampaignOptions& o = summary.options;
  o.out_dir = options.out_dir;
  o.seed = first.seed;
  o.shard_index = 0;
  o.shard_count = 1;
  o.faults = first.faults;
  o.policy = first.policy;
  o.generator.nodes = first.nodes;
  o.generator.max_elements = first.max_elements;
  o.emit = options.emit;
  o.workspace_dir = options.workspace_dir.empty() ? options.out_dir : options.workspace_dir;
  o.package_prefix = options.package_prefix;
  summary.configs = first.configs;
  summary.gpu_note = first.gpu_note;

  // Best finding per signature, and how often each was hit everywhere.
  struct Pick {
    const RecordedFinding* best = nullptr;
    int shard = 0;
    int64_t hits = 0;
    int64_t copies = 0;
    bool new_anywhere = false;
  };
  std::map<std::string, Pick> picks;
  for (const CampaignRecord& r : records) {
    MergeStats(r.stats, summary.stats);
    for (const RecordedFinding& f : r.findings) {
      Pick& p = picks[f.finding.signature];
      p.hits += f.finding.hits;
      ++p.copies;
      p.new_anywhere |= f.finding.new_this_run;
      if (p.best == nullptr || Better(f, r.shard_index, *p.best, p.shard)) {
        p.best = &f;
        p.shard = r.shard_index;
      }
    }
  }
  std::string reprokit_root = options.reprokit_root;
  if (reprokit_root.empty() && options.emit) {
    if (absl::StatusOr<std::string> root = repro::FindReprokitRoot(); root.ok()) {
      reprokit_root = *root;
    }
  }
  std::set<std::string> names;
  for (auto& [signature, pick] : picks) {
    summary.stats.duplicates += pick.copies - 1;
    FindingRecord record = pick.best->finding;
    record.hits = pick.hits;
    record.new_this_run = pick.new_anywhere;
    record.package.clear();
    record.test_label.clear();
    record.emit_error.clear();
    std::string name = record.name;
    for (int i = 2; !names.insert(name).second; ++i) name = absl::StrCat(record.name, "_", i);
    record.name = name;
    const fs::path dir = findings_dir / name;
    if (!pick.best->bundle_digest.empty()) {
      absl::StatusOr<Digest> digest = Digest::FromHex(pick.best->bundle_digest);
      if (!digest.ok()) return digest.status();
      fs::create_directories(dir, ec);
      const std::string archive = (dir / "min.tar.zst").string();
      if (absl::Status s = store.GetToFile(*digest, archive); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("finding ", name, " (", signature,
                                                   "): bundle ", digest->Hex(), ": ", s.message()));
      }
      absl::StatusOr<repro::PackStats> unpacked =
          repro::UnpackBundle(archive, (dir / "min").string());
      ::unlink(archive.c_str());
      if (!unpacked.ok()) {
        return absl::Status(unpacked.status().code(),
                            absl::StrCat("finding ", name, ": ", unpacked.status().message()));
      }
      if (options.emit) {
        repro::EmitRequest request;
        request.bundle_dir = (dir / "min").string();
        request.workspace_dir = o.workspace_dir;
        request.package = absl::StrCat(options.package_prefix, "/", name);
        request.name = name;
        request.create_workspace = true;
        request.reprokit_root = reprokit_root;
        absl::StatusOr<repro::EmitResult> emitted = repro::EmitRepro(request);
        if (emitted.ok()) {
          record.package = request.package;
          record.test_label = emitted->test_label;
        } else {
          record.emit_error = std::string(emitted.status().message());
        }
      }
    } else {
      record.emit_error = "no bundle was stored for this finding";
    }
    if (absl::Status s = SaveFinding(options.out_dir, record); !s.ok()) return s;
    summary.new_findings += record.new_this_run;
    summary.findings.push_back(std::move(record));
  }
  summary.run_seconds = summary.stats.seconds;
  summary.run_graphs = summary.stats.graphs;
  if (absl::Status s = SaveStats(options.out_dir, summary.stats); !s.ok()) return s;
  if (absl::Status s = WriteReports(summary, options.out_dir); !s.ok()) return s;
  return summary;
}

}  // namespace rk::fuzz
