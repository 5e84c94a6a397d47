#include "repro/bisect/pass_bisect.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/printer.h"
#include "repro/bisect/line_diff.h"
#include "repro/oracle/gradients.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

// Caps are int64; doubling past this means the failure never reproduces.
constexpr int64_t kMaxGallopCap = int64_t{1} << 40;
// Files compared between the two dumps, in report order.
constexpr const char* kDiffedFiles[] = {"optimized.rk", "fusion.txt", "kernels.txt"};

std::string VerdictLabel(const Verdict& v) {
  return IsFailure(v.kind) ? v.signature.ToString() : std::string(VerdictKindName(v.kind));
}

compiler::CompileOptions WithCap(const compiler::CompileOptions& options, int64_t cap) {
  compiler::CompileOptions out = options;
  out.max_pass_applications = cap;
  return out;
}

// The bisection state: judged caps and what the oracle said about each.
class CapSearch {
 public:
  CapSearch(FailureProbe& probe, PassBisectResult& result) : probe_(probe), result_(result) {}

  absl::StatusOr<bool> IsBad(int64_t cap) {
    auto it = verdicts_.find(cap);
    if (it == verdicts_.end()) {
      absl::StatusOr<Verdict> v = probe_.Judge(WithCap(probe_.target().options, cap));
      if (!v.ok()) return v.status();
      it = verdicts_.emplace(cap, *std::move(v)).first;
      result_.probes.push_back({cap, probe_.IsTargetFailure(it->second), VerdictLabel(it->second)});
    }
    return probe_.IsTargetFailure(it->second);
  }
  const Verdict& verdict(int64_t cap) const { return verdicts_.at(cap); }

 private:
  FailureProbe& probe_;
  PassBisectResult& result_;
  std::map<int64_t, Verdict> verdicts_;
};

// The graph a dump ends with: the optimized graph, or, when the compile
// failed before it, the last graph the pass manager wrote.
std::string FinalGraphText(const fs::path& dir) {
  if (fs::exists(dir / "optimized.rk")) return ReadFileToString((dir / "optimized.rk").string()).value_or("");
  std::vector<fs::path> passes;
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "passes", error)) {
    passes.push_back(e.path());
  }
  if (passes.empty()) return "";
  std::sort(passes.begin(), passes.end());
  return ReadFileToString((passes.back()).string()).value_or("");
}

// Compiles `cap` with dump_dir set; the options are chosen so the compile is
// safe in this process (see SafeToCompileInProcess).
absl::Status DumpCap(const BisectTarget& target, int64_t cap, const Verdict& verdict,
                     const fs::path& dir, PassBisectResult& result) {
  std::error_code error;
  fs::remove_all(dir, error);
  fs::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", dir.string()));
  compiler::CompileOptions options = WithCap(target.options, cap);
  if (!SafeToCompileInProcess(verdict.kind)) {
    const std::string kind(VerdictKindName(verdict.kind));
    if (target.options.faults.empty()) {
      result.notes.push_back(absl::StrFormat(
          "cap %d is a %s: not compiled in this process, no dump for it", cap, kind));
      return WriteStringToFile((dir / "status.txt").string(), VerdictLabel(verdict) + "\n");
    }
    options = WithoutFaults(options);
    result.notes.push_back(
        absl::StrFormat("cap %d is a %s: dumped without the planted faults", cap, kind));
  }
  options.dump_dir = dir.string();
  ++result.in_process_compiles;
  absl::StatusOr<compiler::Graph> program = CompiledGraph(target.graph, target.options);
  if (!program.ok()) return program.status();
  absl::StatusOr<compiler::Executable> exe = compiler::Compile(*program, options);
  std::string status_line = VerdictLabel(verdict);
  if (exe.ok()) {
    if (absl::Status s = WriteStringToFile((dir / "optimized.rk").string(),
                                           compiler::PrintInline(exe->optimized_graph()));
        !s.ok()) {
      return s;
    }
    std::string log;
    for (const compiler::PassApplication& a : exe->pass_log()) {
      absl::StrAppendFormat(&log, "#%d %s: %s\n", a.number, a.pass, a.detail);
    }
    if (absl::Status s = WriteStringToFile((dir / "pass_log.txt").string(), log); !s.ok()) return s;
  } else {
    absl::StrAppend(&status_line, "\ncompile: ", exe.status().ToString());
  }
  return WriteStringToFile((dir / "status.txt").string(), status_line + "\n");
}

absl::Status WriteDumpsAndDiff(const BisectTarget& target, int64_t k, const Verdict& good,
                               const Verdict& bad, const std::string& dump_dir,
                               PassBisectResult& result) {
  const fs::path root(dump_dir);
  const std::string good_name = absl::StrCat("cap_", k - 1), bad_name = absl::StrCat("cap_", k);
  if (absl::Status s = DumpCap(target, k - 1, good, root / good_name, result); !s.ok()) return s;
  if (absl::Status s = DumpCap(target, k, bad, root / bad_name, result); !s.ok()) return s;
  std::string all;
  for (const char* file : kDiffedFiles) {
    const std::string a = file == std::string("optimized.rk") ? FinalGraphText(root / good_name)
                                                              : ReadFileToString((root / good_name / file).string()).value_or("");
    const std::string b = file == std::string("optimized.rk") ? FinalGraphText(root / bad_name)
                                                              : ReadFileToString((root / bad_name / file).string()).value_or("");
    DumpDiff d;
    d.file = file;
    LineDiffStats stats;
    d.diff = LineDiff(a, b, good_name + "/" + file, bad_name + "/" + file, 3, &stats);
    d.added = stats.added;
    d.removed = stats.removed;
    absl::StrAppend(&all, d.diff);
    result.diffs.push_back(std::move(d));
  }
  result.dump_dir = dump_dir;
  return WriteStringToFile((root / "diff.txt").string(), all);
}

// Step 1: N and the log of an uncapped compile, when compiling here is safe.
void CountApplications(FailureProbe& probe, std::vector<compiler::PassApplication>& log,
                       PassBisectResult& result) {
  const BisectTarget& target = probe.target();
  if (!SafeToCompileInProcess(target.signature.kind) && target.options.faults.empty()) {
    result.notes.push_back(
        "the failure is a crash or hang without planted faults: applications were not counted "
        "in this process; the upper bound comes from doubling the cap");
    return;
  }
  ++result.in_process_compiles;
  // The oracle compiles the joint graph of a graph with gradients; so must this.
  absl::StatusOr<compiler::Graph> program = CompiledGraph(target.graph, target.options);
  if (!program.ok()) {
    result.notes.push_back(absl::StrCat("counting compile failed (", program.status().ToString(),
                                        "); the upper bound comes from doubling the cap"));
    return;
  }
  absl::StatusOr<compiler::Executable> exe =
      compiler::Compile(*program, WithCap(WithoutFaults(target.options), -1));
  if (!exe.ok()) {
    result.notes.push_back(absl::StrCat("counting compile failed (", exe.status().ToString(),
                                        "); the upper bound comes from doubling the cap"));
    return;
  }
  result.total_applications = exe->requested_applications();
  log = exe->pass_log();
}

}  // namespace

absl::StatusOr<PassBisectResult> BisectPassApplications(FailureProbe& probe,
                                                        const PassBisectOptions& options) {
  PassBisectResult result;
  const int64_t judged_before = probe.judgements();
  const BisectTarget& target = probe.target();
  std::vector<compiler::PassApplication> log;
  CountApplications(probe, log, result);
  CapSearch search(probe, result);

  absl::StatusOr<bool> bad0 = search.IsBad(0);
  if (!bad0.ok()) return bad0.status();
  if (*bad0) {
    result.persists_without_passes = true;
    result.first_bad = search.verdict(0);
    result.judgements = probe.judgements() - judged_before;
    return result;
  }
  int64_t lo = 0, hi = result.total_applications;
  if (target.options.max_pass_applications >= 0 &&
      (hi < 0 || target.options.max_pass_applications < hi)) {
    hi = target.options.max_pass_applications;
  }
  if (hi < 0) {
    // Doubling: the smallest power of two that fails bounds the search.
    for (int64_t cap = 1;; cap *= 2) {
      if (cap > kMaxGallopCap) {
        return absl::FailedPreconditionError(
            "the failure does not reproduce at any pass-application cap");
      }
      absl::StatusOr<bool> bad = search.IsBad(cap);
      if (!bad.ok()) return bad.status();
      if (*bad) {
        hi = cap;
        break;
      }
      lo = cap;
    }
  } else {
    // Cap N refuses nothing, so it is the failing configuration itself; judge
    // it anyway: a flaky or cap-sensitive failure must not produce a culprit.
    absl::StatusOr<bool> bad = search.IsBad(hi);
    if (!bad.ok()) return bad.status();
    if (!*bad) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "cap %d (every application allowed) does not fail with %s but with %s", hi,
          target.signature.ToString(), VerdictLabel(search.verdict(hi))));
    }
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    absl::StatusOr<bool> bad = search.IsBad(mid);
    if (!bad.ok()) return bad.status();
    (*bad ? hi : lo) = mid;
  }
  const int64_t k = hi;
  result.last_good = search.verdict(k - 1);
  result.first_bad = search.verdict(k);
  result.application = {k, "", ""};
  for (const compiler::PassApplication& a : log) {
    if (a.number == k) result.application = a;
  }
  result.judgements = probe.judgements() - judged_before;
  if (!options.dump_dir.empty()) {
    if (absl::Status s = WriteDumpsAndDiff(target, k, result.last_good, result.first_bad,
                                           options.dump_dir, result);
        !s.ok()) {
      return s;
    }
  }
  return result;
}

std::string PassBisectResult::ToText() const {
  std::string out;
  const std::string n = total_applications >= 0 ? absl::StrCat(total_applications) : "unknown";
  if (persists_without_passes) {
    absl::StrAppend(&out, "first bad: none of the ", n, " optional pass applications\n",
                    "the failure persists with every optional pass disabled (cap 0): ",
                    VerdictLabel(first_bad), "\n",
                    "the bug is in required lowering or code generation, not in an optional "
                    "pass; try `--nodes` to find the first wrong node\n");
  } else {
    const std::string pass = application.pass.empty() ? "?" : application.pass;
    absl::StrAppendFormat(&out, "first bad: pass '%s' application #%d of %s\n", pass,
                          application.number, n);
    absl::StrAppendFormat(&out, "  touched:    %s\n",
                          application.detail.empty() ? "(not known: the log was not available)"
                                                     : application.detail);
    absl::StrAppendFormat(&out, "  cap %-6d  %s\n", application.number - 1,
                          VerdictLabel(last_good));
    absl::StrAppendFormat(&out, "  cap %-6d  %s\n", application.number, VerdictLabel(first_bad));
  }
  absl::StrAppendFormat(&out, "compiles: %d judged by the oracle + %d in this process\n",
                        judgements, in_process_compiles);
  std::string trail;
  for (const CapProbe& p : probes) {
    absl::StrAppendFormat(&trail, " %d:%s", p.cap, p.target_failure ? "bad" : "good");
  }
  absl::StrAppend(&out, "caps tried:", trail, "\n");
  if (!dump_dir.empty()) {
    absl::StrAppendFormat(&out, "dumps: %s/cap_%d  %s/cap_%d  (diff: %s/diff.txt)\n", dump_dir,
                          application.number - 1, dump_dir, application.number, dump_dir);
    for (const DumpDiff& d : diffs) {
      absl::StrAppendFormat(&out, "  %-13s %s\n", d.file,
                            d.diff.empty() ? "unchanged"
                                           : absl::StrFormat("+%d -%d lines", d.added, d.removed));
    }
    for (const DumpDiff& d : diffs) {
      if (d.file != "kernels.txt") absl::StrAppend(&out, d.diff);
    }
  }
  for (const std::string& note : notes) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

Json PassBisectResult::ToJson() const {
  Json j = Json::MakeObject();
  j.Set("mode", "passes");
  j.Set("total_applications", total_applications);
  j.Set("persists_without_passes", persists_without_passes);
  if (!persists_without_passes) {
    Json a = Json::MakeObject();
    a.Set("number", application.number);
    a.Set("pass", application.pass);
    a.Set("detail", application.detail);
    j.Set("first_bad", std::move(a));
    j.Set("last_good_verdict", VerdictLabel(last_good));
  }
  j.Set("first_bad_verdict", VerdictLabel(first_bad));
  Json caps = Json::MakeArray();
  for (const CapProbe& p : probes) {
    Json c = Json::MakeObject();
    c.Set("cap", p.cap);
    c.Set("bad", p.target_failure);
    c.Set("verdict", p.verdict);
    caps.push_back(std::move(c));
  }
  j.Set("caps", std::move(caps));
  j.Set("judgements", judgements);
  j.Set("in_process_compiles", in_process_compiles);
  if (!dump_dir.empty()) {
    j.Set("dump_dir", dump_dir);
    Json files = Json::MakeArray();
    for (const DumpDiff& d : diffs) {
      Json f = Json::MakeObject();
      f.Set("file", d.file);
      f.Set("added", d.added);
      f.Set("removed", d.removed);
      files.push_back(std::move(f));
    }
    j.Set("diffs", std::move(files));
  }
  Json note_list = Json::MakeArray();
  for (const std::string& note : notes) note_list.push_back(note);
  j.Set("notes", std::move(note_list));
  return j;
}

}  // namespace rk::repro
