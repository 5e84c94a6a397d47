// OracleInterestingness: the Interestingness of a real minimization, judged by
// repro::Oracle (isolated workers, so a crashing compiler is a verdict, not a
// dead minimizer). Interesting iff the verdict's signature equals the
// expected one; another failure signature is drift. Judge is thread-safe.
//
// Accuracy failures are anchored upstream. An accuracy signature without a
// planted fault to name (repro/oracle/failure_site.h) names the op of a
// failing output, which is where the error became visible, not where it
// started: a miscompiled relu feeding an add fails as
// "accuracy:miscompile:add:f32" (with `relu:accuracy` planted it is
// "accuracy:miscompile:relu:f32" from the start, and nothing needs
// anchoring). Constructed with the start graph, it
// also accepts an accuracy failure with the same subkind and dtype whose
// failing output is produced by the node the expected signature names or by
// one of that node's ancestors in the start graph (matched by node name:
// NameUnnamedNodes gives every node one). The error then shows up earlier on
// the same path, so it is the same divergence observed nearer its source,
// and the minimizer can cut the add away and keep the relu alone. Which op
// the final candidate fails at is in MinifyStats::signature. (The engine's
// memo key ignores names: a candidate identical in structure and inputs to
// an anchored one gets its answer, which is right, since it computes the same
// thing.)
//
// Deferred classification. The miscompile/precision subkind costs a second
// compile of every failing candidate (the fp64 recompile). With
// DeferClassification() candidates are judged without it and an accuracy
// failure of unknown subkind is taken to have the expected one; the caller
// confirms the result once with JudgeClassified (minify_bundle.cc does, for
// external backends, whose compiles cost seconds).
//
// A bundle captured with its miscompile/precision check deferred
// (repro/bundle/bundle.h) expects the subkind "unknown": with
// AcceptAnySubkind() an accuracy failure matches whatever subkind it names,
// so candidates judged with the check (--classify-each) and the result's
// final judgement match it.
//
// Tested by minifier/oracle_interestingness_test.cc and
// minifier/minify_bundle_test.cc.
#ifndef REPROKIT_MINIFIER_ORACLE_INTERESTINGNESS_H_
#define REPROKIT_MINIFIER_ORACLE_INTERESTINGNESS_H_

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"
#include "minifier/candidate.h"
#include "minifier/interestingness.h"
#include "repro/oracle/oracle.h"
#include "repro/oracle/signature.h"
#include "repro/oracle/verdict.h"

namespace rk::minifier {

class OracleInterestingness : public Interestingness {
 public:
  // Exact signatures only. `oracle` is not owned and must outlive this object.
  OracleInterestingness(repro::Oracle* oracle, compiler::CompileOptions options,
                        repro::Signature expected)
      : oracle_(oracle), options_(std::move(options)), expected_(std::move(expected)) {}
  // With the upstream anchoring of accuracy failures described above; `start`
  // is the graph the minimization starts from (its nodes named).
  OracleInterestingness(repro::Oracle* oracle, compiler::CompileOptions options,
                        repro::Signature expected, const compiler::Graph& start);

  absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override;
  // For an accuracy or nondeterministic signature: the candidate has a node
  // the expected signature could name (repro/oracle/failure_site.h), or, when
  // anchoring, one of the upstream nodes with the expected dtype.
  bool CanMatch(const Candidate& candidate) const override;

  // Judge candidates without the fp64 recompile from now on (see above).
  void DeferClassification() { defer_classification_ = true; }
  bool defers_classification() const { return defer_classification_; }
  // Accuracy failures match whatever their subkind (see above).
  void AcceptAnySubkind() { any_subkind_ = true; }
  // One judgement with the fp64 recompile, whatever was deferred.
  absl::StatusOr<repro::Verdict> JudgeClassified(const Candidate& candidate);

  // Whether `verdict` is the expected failure (exactly, or anchored upstream).
  bool Matches(const repro::Verdict& verdict) const;

 private:
  repro::Oracle* oracle_;
  compiler::CompileOptions options_;
  repro::Signature expected_;
  // For accuracy anchoring: subkind and dtype of the expected signature and
  // the names of every start-graph node at or above an output with the
  // expected op and dtype. Empty: exact matching only.
  std::string subkind_, dtype_;
  absl::flat_hash_set<std::string> upstream_;
  bool defer_classification_ = false;
  bool any_subkind_ = false;
};

// Gives every unnamed node of `graph` a name ("n<id>", made unique), so the
// nodes keep an identity across the minimizer's rebuilds (names survive them;
// ids do not). Named nodes and the graph's semantics are unchanged.
void NameUnnamedNodes(compiler::Graph& graph);

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_ORACLE_INTERESTINGNESS_H_
