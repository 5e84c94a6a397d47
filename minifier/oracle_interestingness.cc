#include "minifier/oracle_interestingness.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/passes/constant_fold.h"
#include "minifier/rewrite.h"
#include "repro/oracle/failure_site.h"
#include "repro/oracle/gradients.h"

namespace rk::minifier {
namespace {

using compiler::Graph;
using compiler::NodeId;

// "miscompile:add:f32" -> {"miscompile", "add", "f32"}; empty when malformed.
// A gradient signature ("miscompile:grad:transpose:f32") gives the same three.
std::vector<std::string> AccuracyParts(const repro::Signature& signature) {
  std::optional<repro::AccuracyDetail> d = repro::ParseAccuracyDetail(signature);
  if (!d.has_value()) return {};
  return {d->subkind, d->op, d->dtype};
}

bool IsGradientSignature(const repro::Signature& signature) {
  std::optional<repro::AccuracyDetail> d = repro::ParseAccuracyDetail(signature);
  return d.has_value() && d->gradient;
}

// A graph without inputs whose values are all small enough for constant_fold
// (compiler/passes/constant_fold.h), compiled by the built-in compiler with
// folding on: it is folded whole with the reference interpreter, so the
// program runs no generated code and equals the native reference bit for bit
// (faults that change values live in generated code only). It can neither be
// inaccurate nor vary between runs.
bool FoldsWhole(const Graph& graph, const compiler::CompileOptions& options) {
  if (!graph.inputs().empty() || options.external() || options.opt_level == 0 ||
      options.max_pass_applications >= 0 ||
      absl::c_linear_search(options.disable_passes, "constant_fold")) {
    return false;
  }
  for (const compiler::Node& node : graph.nodes()) {
    if (node.type.shape.num_elements() > compiler::kMaxFoldedElements) return false;
  }
  return true;
}

}  // namespace

OracleInterestingness::OracleInterestingness(repro::Oracle* oracle,
                                             compiler::CompileOptions options,
                                             repro::Signature expected, const Graph& start)
    : OracleInterestingness(oracle, std::move(options), std::move(expected)) {
  std::vector<std::string> parts = AccuracyParts(expected_);
  // A gradient failure is matched exactly: its outputs are the joint graph's.
  if (parts.empty() || IsGradientSignature(expected_)) return;
  subkind_ = parts[0];
  dtype_ = parts[2];
  std::vector<bool> above(start.num_nodes(), false);
  for (NodeId out : start.outputs()) {
    const compiler::Node& node = start.node(out);
    above[out.value] = compiler::OpName(node.op) == parts[1] &&
                       compiler::DTypeName(node.type.dtype) == parts[2];
  }
  for (int i = start.num_nodes() - 1; i >= 0; --i) {
    if (!above[i]) continue;
    upstream_.insert(start.DisplayName(NodeId(i)));
    for (NodeId operand : start.node(NodeId(i)).operands) above[operand.value] = true;
  }
}

bool OracleInterestingness::Matches(const repro::Verdict& verdict) const {
  if (verdict.signature == expected_) return true;
  std::vector<std::string> parts = AccuracyParts(verdict.signature);
  std::vector<std::string> expected_parts = AccuracyParts(expected_);
  if (any_subkind_ && !parts.empty() && !expected_parts.empty() &&
      repro::AccuracySignatureLike(*repro::ParseAccuracyDetail(verdict.signature),
                                   expected_parts[0], parts[1], parts[2]) == expected_) {
    return true;
  }
  if (upstream_.empty() || verdict.kind != repro::VerdictKind::kAccuracy) return false;
  if (parts.empty() || (parts[0] != subkind_ && !any_subkind_) || parts[2] != dtype_) {
    return false;
  }
  // The signature describes one of the failing outputs (failure_site.h).
  for (const repro::OutputVerdict& o : verdict.outputs) {
    if (o.metrics.judgement == repro::Judgement::kFail && o.op == parts[1] &&
        upstream_.contains(o.node)) {
      return true;
    }
  }
  return false;
}

bool OracleInterestingness::CanMatch(const Candidate& candidate) const {
  if ((expected_.kind == repro::VerdictKind::kAccuracy ||
       expected_.kind == repro::VerdictKind::kNondeterministic) &&
      FoldsWhole(candidate.graph, options_)) {
    return false;
  }
  // "op:dtype" of a nondeterministic signature.
  if (expected_.kind == repro::VerdictKind::kNondeterministic) {
    std::vector<std::string> parts = absl::StrSplit(expected_.detail, ':');
    return parts.size() != 2 || repro::CanNameFailure(candidate.graph, parts[0], parts[1]);
  }
  std::vector<std::string> parts = AccuracyParts(expected_);
  if (parts.empty()) return true;
  if (IsGradientSignature(expected_)) {
    // No marked input, no gradient to fail. A planted vjp:<op> fault names a
    // forward op; otherwise the name is the joint graph's, not checked here.
    if (!repro::HasGradientMarks(candidate.graph)) return false;
    if (!repro::FindPlantedVjpSite(candidate.graph, options_).has_value()) return true;
    return repro::CanNameFailure(candidate.graph, parts[1], parts[2]);
  }
  if (repro::CanNameFailure(candidate.graph, parts[1], parts[2])) return true;
  if (upstream_.empty()) return false;
  const Graph& g = candidate.graph;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(NodeId(i)).op != compiler::Op::kInput &&
        compiler::DTypeName(g.type(NodeId(i)).dtype) == dtype_ &&
        upstream_.contains(g.DisplayName(NodeId(i)))) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<InterestingnessResult> OracleInterestingness::Judge(const Candidate& candidate) {
  repro::OracleOptions judging = oracle_->config().options;
  if (defer_classification_) judging.classify_accuracy = false;
  absl::StatusOr<repro::Verdict> verdict =
      oracle_->Judge(candidate.graph, candidate.inputs, options_, judging);
  if (!verdict.ok()) return verdict.status();
  // Unclassified: assume the expected subkind (confirmed at the end).
  std::vector<std::string> expected_parts = AccuracyParts(expected_);
  if (defer_classification_ && verdict->kind == repro::VerdictKind::kAccuracy &&
      verdict->accuracy_subkind == "unknown" && !expected_parts.empty()) {
    if (std::vector<std::string> parts = AccuracyParts(verdict->signature); !parts.empty()) {
      verdict->accuracy_subkind = expected_parts[0];
      verdict->signature = repro::AccuracySignatureLike(
          *repro::ParseAccuracyDetail(verdict->signature), expected_parts[0], parts[1], parts[2]);
    }
  }
  InterestingnessResult result;
  result.signature = verdict->signature.ToString();
  result.interesting = Matches(*verdict);
  result.drift = !result.interesting && repro::IsFailure(verdict->kind);
  return result;
}

absl::StatusOr<repro::Verdict> OracleInterestingness::JudgeClassified(const Candidate& candidate) {
  repro::OracleOptions judging = oracle_->config().options;
  judging.classify_accuracy = true;
  return oracle_->Judge(candidate.graph, candidate.inputs, options_, judging);
}

void NameUnnamedNodes(Graph& graph) {
  absl::flat_hash_set<std::string> taken;
  for (const compiler::Node& node : graph.nodes()) {
    if (!node.name.empty()) taken.insert(node.name);
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    compiler::Node& node = graph.mutable_node(NodeId(i));
    if (node.name.empty()) node.name = FreshName(absl::StrCat("n", i), taken);
  }
}

}  // namespace rk::minifier
