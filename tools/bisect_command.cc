// `reprokit bisect BUNDLE|GRAPH --passes | --options | --nodes`: finds what
// makes a failing compilation fail (docs/WORKFLOWS.md): the first bad
// optional pass application, the minimal option difference from a good
// configuration, or the first node whose compiled value diverges.
//
// Exit codes (README.md's, made precise for a search):
//   0    a finding was reported: the first bad application, or that the
//        failure persists with every optional pass disabled; a minimal
//        option difference; the first divergent node.
//   1    nothing to attribute: the input does not fail (or not with the
//        bundle's recorded signature); no pass cap reproduces it; the good
//        options fail the same way; no node diverges once every node is
//        materialized.
//   2    usage or bad input (flags, unreadable bundle or graph, bad option
//        text, --nodes on a failure that is not an accuracy failure).
//   125  cannot judge: the oracle cannot judge the failing configuration
//        (e.g. NaN in the fp64 reference) or could not run at all.
// Tested by tools/bisect_command_test.sh.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/options/compile_options.h"
#include "repro/bisect/divergence.h"
#include "repro/bisect/failure_probe.h"
#include "repro/bisect/option_bisect.h"
#include "repro/bisect/pass_bisect.h"
#include "repro/bundle/bundle.h"
#include "repro/oracle/oracle.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/oracle_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kName[] = "bisect";
constexpr char kAutoDumpDir[] = "<auto>";

struct BisectFlags {
  bool passes = false, options = false, nodes = false, json = false;
  std::vector<std::string> good_opts;
  std::string dump_dir = kAutoDumpDir;
  int64_t seed = 0;
  // --opt describes the failing configuration; --policy and --tol how to
  // judge it.
  OracleFlags oracle;
};

// The failing configuration.
struct Input {
  repro::BisectTarget target;
  // The bundle's recorded failure, when it has one.
  bool has_recorded = false;
  repro::Signature recorded;
  // Its miscompile/precision check was deferred at capture (any subkind matches).
  bool recorded_deferred = false;
};

int Fail(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kDataLoss:
      return ReportError(kName, status);
    default:
      std::fprintf(stderr, "reprokit: %s: cannot judge: %s\n", kName,
                   std::string(status.message()).c_str());
      return kExitCannotTest;
  }
}

int NothingToAttribute(const std::string& why) {
  std::fprintf(stderr, "reprokit: %s: nothing to bisect: %s\n", kName, why.c_str());
  return kExitReproduces;
}

// Loads the bundle or graph at `path`; a bundle's policy and tolerance
// become the defaults of `f->oracle`.
absl::StatusOr<Input> LoadInput(const std::string& path, const FlagSet& flags, BisectFlags* f) {
  Input in;
  if (repro::IsBundleDir(path)) {
    absl::StatusOr<repro::LoadedBundle> loaded = repro::LoadBundle(path);
    if (!loaded.ok()) return loaded.status();
    for (const std::string& w : loaded->warnings) {
      std::fprintf(stderr, "reprokit: %s: warning: %s\n", kName, w.c_str());
    }
    in.target.graph = loaded->bundle.graph;
    in.target.inputs = loaded->inputs;
    in.target.options = loaded->bundle.options;
    f->oracle.DefaultToRecorded(flags, loaded->bundle.policy, loaded->bundle.tol);
    if (repro::IsFailure(loaded->bundle.expected.kind)) {
      in.has_recorded = true;
      in.recorded = loaded->bundle.expected.signature;
      in.recorded_deferred = loaded->bundle.precision_check_deferred;
    }
  } else {
    absl::StatusOr<GraphSource> source = LoadGraphSource(path);
    if (!source.ok()) return source.status();
    in.target.graph = std::move(source->graph);
    in.target.inputs = compiler::SeededInputs(in.target.graph, static_cast<uint64_t>(f->seed));
  }
  if (absl::Status s = f->oracle.ApplyTo(flags, &in.target.options); !s.ok()) return s;
  absl::StatusOr<compiler::Graph> marked = f->oracle.ApplyGrad(flags, in.target.graph);
  if (!marked.ok()) return marked.status();
  in.target.graph = *std::move(marked);
  return in;
}

std::string DefaultDumpDir(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? path : path.substr(slash + 1)) + ".bisect";
}

void Print(const BisectFlags& f, const std::string& text, const Json& json) {
  if (f.json) {
    std::printf("%s\n", json.DumpPretty().c_str());
  } else {
    std::fputs(text.c_str(), stdout);
  }
}

int RunPasses(repro::FailureProbe& probe, const BisectFlags& f, const std::string& path) {
  repro::PassBisectOptions options;
  options.dump_dir = f.dump_dir == kAutoDumpDir ? DefaultDumpDir(path) : f.dump_dir;
  absl::StatusOr<repro::PassBisectResult> result = repro::BisectPassApplications(probe, options);
  if (!result.ok()) {
    if (result.status().code() == absl::StatusCode::kFailedPrecondition) {
      return NothingToAttribute(std::string(result.status().message()));
    }
    return Fail(result.status());
  }
  Print(f, result->ToText(), result->ToJson());
  return kExitOk;
}

int RunOptions(repro::FailureProbe& probe, const BisectFlags& f) {
  compiler::CompileOptions good;
  if (absl::Status s = good.Apply(f.good_opts); !s.ok()) return ReportError(kName, s);
  absl::StatusOr<repro::OptionBisectResult> result = repro::BisectOptions(probe, good);
  if (!result.ok()) return Fail(result.status());
  Print(f, result->ToText(), result->ToJson());
  if (result->good_fails) return NothingToAttribute("the good options fail the same way");
  return kExitOk;
}

int RunNodes(const Input& in, const repro::Verdict& verdict, const BisectFlags& f) {
  if (verdict.kind != repro::VerdictKind::kAccuracy) {
    return ReportError(kName, absl::InvalidArgumentError(absl::StrCat(
                                  "--nodes needs an accuracy failure, this one is ",
                                  verdict.signature.ToString(), "; try --passes")));
  }
  repro::DivergenceOptions options;
  options.policy = f.oracle.policy;
  options.accuracy.tol = f.oracle.tol;
  absl::StatusOr<repro::DivergenceReport> report =
      repro::AnalyzeDivergence(in.target.graph, in.target.inputs, in.target.options, options);
  if (!report.ok()) return Fail(report.status());
  std::string text = absl::StrCat("failure: ", verdict.signature.ToString(), " (", verdict.message,
                                  ")\n", report->ToText());
  Print(f, text, report->ToJson());
  if (report->divergent() == nullptr) {
    return NothingToAttribute("no node diverges when every node is materialized");
  }
  return kExitOk;
}

int RunBisect(absl::Span<const std::string> args) {
  BisectFlags f;
  FlagSet flags(
      "bisect BUNDLE|GRAPH (--passes | --options [--good-opt k=v ...] | --nodes) [flags]",
      "Finds what makes a failing compilation fail, judging every variant with the\n"
      "oracle in isolated workers:\n"
      "  --passes   binary search on max_pass_applications: the first optional pass\n"
      "             application that makes it fail with its signature (pass, number,\n"
      "             node), with dumps and a diff of caps k-1 and k\n"
      "  --options  delta debugging over the options that differ from a good\n"
      "             configuration (defaults, or --good-opt key=value ...)\n"
      "  --nodes    the first node whose compiled value exceeds the accuracy policy,\n"
      "             with a per-node error table (every node made an output)\n"
      "A GRAPH file runs on seeded inputs (--seed) with --opt options; a BUNDLE uses\n"
      "its own inputs, options (--opt adds to them), policy and signature.\n"
      "Exit: 0 found, 1 nothing to attribute (does not fail, or not because of the\n"
      "bisected dimension), 2 bad input, 125 cannot judge.");
  flags.Bool("passes", &f.passes, "bisect optional pass applications");
  flags.Bool("options", &f.options, "bisect compile options against a good baseline");
  flags.Bool("nodes", &f.nodes, "find the first diverging node");
  flags.Repeated("good-opt", &f.good_opts, "good baseline option key=value (default: defaults)");
  f.oracle.Register(flags, /*takes_bundle=*/true);
  flags.Int("seed", &f.seed, "seed for a GRAPH's random inputs");
  flags.String("dump-dir", &f.dump_dir,
               "--passes: where dumps of caps k-1 and k go (default: <input>.bisect; "
               "empty: none)");
  flags.Bool("json", &f.json, "print the result as JSON");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kName, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError(kName, absl::InvalidArgumentError("expected one BUNDLE or GRAPH"));
  }
  if (f.passes + f.options + f.nodes != 1) {
    return ReportError(kName,
                       absl::InvalidArgumentError("give exactly one of --passes, --options, --nodes"));
  }
  if (!f.good_opts.empty() && !f.options) {
    return ReportError(kName, absl::InvalidArgumentError("--good-opt goes with --options"));
  }
  const std::string& path = (*positional)[0];
  absl::StatusOr<Input> in = LoadInput(path, flags, &f);
  if (!in.ok()) return ReportError(kName, in.status());

  absl::StatusOr<std::unique_ptr<repro::Oracle>> oracle =
      repro::Oracle::Create(f.oracle.OracleConfig());
  if (!oracle.ok()) return ReportError(kName, oracle.status());

  repro::FailureProbe probe(oracle->get(), &in->target);
  absl::StatusOr<repro::Verdict> verdict = probe.Judge(in->target.options);
  if (!verdict.ok()) return Fail(verdict.status());
  if (verdict->kind == repro::VerdictKind::kCannotJudge) {
    return Fail(absl::UnavailableError(verdict->message));
  }
  if (!repro::IsFailure(verdict->kind)) {
    return NothingToAttribute(absl::StrCat("it passes with options '",
                                           in->target.options.ToString(), "'"));
  }
  if (in->has_recorded &&
      !repro::MatchesExpected(in->recorded, in->recorded_deferred, verdict->signature)) {
    return NothingToAttribute(absl::StrCat("the bundle records ", in->recorded.ToString(),
                                           " but it now fails with ",
                                           verdict->signature.ToString()));
  }
  in->target.signature = verdict->signature;
  if (f.passes) return RunPasses(probe, f, path);
  if (f.options) return RunOptions(probe, f);
  return RunNodes(*in, *verdict, f);
}

}  // namespace

REPROKIT_SUBCOMMAND("bisect", "find the pass application, option or node that breaks a repro",
                    &RunBisect);

}  // namespace rk::tools
