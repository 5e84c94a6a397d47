#include "minifier/engine.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"
#include "minifier/scratch_store.h"
#include "repro/store/store.h"

namespace rk::minifier {
namespace {

using compiler::Op;

constexpr char kRelu[] = "accuracy:miscompile:relu:f32";

// Fails like a planted relu fault iff the graph holds the chain `ops`.
FunctionInterestingness ChainInterestingness(std::vector<Op> ops) {
  return FunctionInterestingness(
      [ops](const Candidate& c) { return HasChain(c.graph, ops) ? kRelu : "pass"; }, kRelu);
}

double Budget(int k, int n) { return 2.0 * k * std::log2(static_cast<double>(n)) + 20; }

struct Case {
  int nodes;
  uint64_t seed;
};

class KnownMinimum : public ::testing::TestWithParam<Case> {};

TEST_P(KnownMinimum, SingleCulpritReachesOneNode) {
  RandomDagOptions dag{.seed = GetParam().seed, .nodes = GetParam().nodes};
  FunctionInterestingness interestingness = ChainInterestingness({Op::kRelu});
  absl::StatusOr<MinifyResult> result = Minify(RandomDag(dag), interestingness, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 1)
      << compiler::PrintInline(result->best.graph);
  EXPECT_LE(result->stats.oracle_calls, Budget(1, dag.nodes));
  EXPECT_TRUE(result->stats.one_minimal);
  EXPECT_FALSE(result->stats.flaky);
}

TEST_P(KnownMinimum, ExpFeedingReluReachesTwoNodes) {
  RandomDagOptions dag{.seed = GetParam().seed, .nodes = GetParam().nodes,
                       .planted = {Op::kExp, Op::kRelu}};
  FunctionInterestingness interestingness = ChainInterestingness({Op::kExp, Op::kRelu});
  absl::StatusOr<MinifyResult> result = Minify(RandomDag(dag), interestingness, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 2)
      << compiler::PrintInline(result->best.graph);
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kExp, Op::kRelu}));
  EXPECT_LE(result->stats.oracle_calls, Budget(2, dag.nodes));
}

INSTANTIATE_TEST_SUITE_P(Sizes, KnownMinimum,
                         ::testing::Values(Case{50, 1}, Case{50, 2}, Case{200, 3}, Case{200, 4},
                                           Case{1000, 5}, Case{1000, 6}),
                         [](const auto& info) {
                           return absl::StrCat("n", info.param.nodes, "_seed", info.param.seed);
                         });

// An interestingness that knows, without judging, that a graph with no relu
// cannot fail like the planted relu: those candidates cost no call.
class ReluOnly : public Interestingness {
 public:
  absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override {
    ++calls;
    without_relu += !HasChain(candidate.graph, {Op::kRelu});
    InterestingnessResult r;
    r.signature = HasChain(candidate.graph, {Op::kRelu}) ? kRelu : "pass";
    r.interesting = r.signature == kRelu;
    return r;
  }
  bool CanMatch(const Candidate& candidate) const override {
    return HasChain(candidate.graph, {Op::kRelu});
  }
  std::atomic<int> calls{0}, without_relu{0};
};

TEST(Engine, CandidatesThatCannotMatchAreNeverJudged) {
  RandomDagOptions dag{.seed = 4, .nodes = 200};
  ReluOnly prefiltered;
  absl::StatusOr<MinifyResult> result = Minify(RandomDag(dag), prefiltered, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  FunctionInterestingness plain = ChainInterestingness({Op::kRelu});
  absl::StatusOr<MinifyResult> unfiltered = Minify(RandomDag(dag), plain, MinifyOptions());
  ASSERT_TRUE(unfiltered.ok()) << unfiltered.status();
  EXPECT_EQ(prefiltered.without_relu.load(), 0);
  EXPECT_EQ(result->stats.oracle_calls, prefiltered.calls.load());
  EXPECT_GT(result->stats.cannot_match, 0);
  // The same minimum, with fewer calls.
  EXPECT_EQ(CandidateKey(result->best), CandidateKey(unfiltered->best));
  EXPECT_LT(result->stats.oracle_calls, unfiltered->stats.oracle_calls);
}

TEST(Engine, RejectsDriftToAnotherSignature) {
  // Keeping a relu without a sin fails differently: following that would
  // hand back another bug.
  FunctionInterestingness interestingness(
      [](const Candidate& c) -> std::string {
        if (!HasChain(c.graph, {Op::kRelu})) return "pass";
        return HasChain(c.graph, {Op::kSin}) ? kRelu : "crash:SIGSEGV@compile";
      },
      kRelu);
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.seed = 9, .nodes = 120}), interestingness, MinifyOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kRelu}));
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kSin}));
  EXPECT_GT(result->stats.rejected_drifts, 0);
  EXPECT_EQ(result->stats.final_score.compute_nodes(), 2);
}

TEST(Engine, SameResultForAnyJobCount) {
  Candidate start = RandomDag({.seed = 11, .nodes = 300, .planted = {Op::kExp, Op::kRelu}});
  std::string first;
  for (int jobs : {1, 2, 4}) {
    FunctionInterestingness interestingness = ChainInterestingness({Op::kExp, Op::kRelu});
    MinifyOptions options;
    options.jobs = jobs;
    absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
    ASSERT_TRUE(result.ok()) << result.status();
    std::string printed = compiler::PrintCanonical(result->best.graph);
    if (jobs == 1) first = printed;
    EXPECT_EQ(printed, first) << "jobs=" << jobs;
  }
}

// Every -j accepts -j 1's candidates in -j 1's order (the chained key of
// every accepted step, MinifyStats::accepted_sequence), ends on its graph,
// uses exactly its calls and issues at most twice as many plus one round of
// workers (the engine's bound: MaySpeculate).
TEST(Engine, SameAcceptedSequenceForAnyJobCount) {
  struct Dag {
    uint64_t seed;
    int nodes;
    std::vector<Op> planted;
  };
  for (const Dag& dag : {Dag{1, 1000, {Op::kRelu}}, Dag{2, 1000, {Op::kRelu}},
                         Dag{3, 400, {Op::kExp, Op::kRelu}}, Dag{4, 60, {Op::kRelu}}}) {
    Candidate start = RandomDag({.seed = dag.seed, .nodes = dag.nodes, .planted = dag.planted});
    MinifyStats first;
    std::string first_graph;
    for (int jobs : {1, 2, 8}) {
      FunctionInterestingness interestingness = ChainInterestingness(dag.planted);
      MinifyOptions options;
      options.jobs = jobs;
      options.fp64_values = true;
      std::vector<std::string> accepted;
      options.on_accept = [&](const Candidate& best, const MinifyStats&) {
        accepted.push_back(CandidateKey(best));
      };
      absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
      ASSERT_TRUE(result.ok()) << result.status();
      const std::string graph = compiler::PrintCanonical(result->best.graph);
      ASSERT_FALSE(accepted.empty());
      EXPECT_EQ(accepted.back(), CandidateKey(result->best));
      if (jobs == 1) {
        first = result->stats;
        first_graph = graph;
        EXPECT_EQ(first.oracle_calls, first.oracle_calls_used);
      }
      const std::string where = absl::StrCat("seed ", dag.seed, " -j ", jobs);
      EXPECT_EQ(result->stats.accepted_steps, first.accepted_steps) << where;
      EXPECT_EQ(result->stats.accepted_sequence, first.accepted_sequence) << where;
      EXPECT_EQ(graph, first_graph) << where;
      EXPECT_EQ(result->stats.oracle_calls_used, first.oracle_calls) << where;
      EXPECT_LE(result->stats.oracle_calls, 2 * first.oracle_calls + jobs) << where;
    }
  }
}

// With -j > 1 the start is judged beside the first proposals; nothing is
// accepted before its answer, and a start that does not fail is still the
// FailedPrecondition it is with -j 1.
TEST(Engine, StartJudgedBesideTheFirstProposalsMustStillFail) {
  FunctionInterestingness interestingness = ChainInterestingness({Op::kErf});
  int accepted = 0;
  MinifyOptions options;
  options.jobs = 4;
  options.on_accept = [&](const Candidate&, const MinifyStats&) { ++accepted; };
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.seed = 3, .nodes = 200}), interestingness, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(accepted, 0);
}

// A slow start: the steps accepted while its judgement runs are written
// (on_accept) only after it answered, and the result is -j 1's.
TEST(Engine, StepsAcceptedBeforeTheStartAnswersAreReportedAfterIt) {
  Candidate start = RandomDag({.seed = 7, .nodes = 300});
  const int64_t start_nodes = CountComputeNodes(start.graph);
  std::atomic<bool> start_answered{false};
  FunctionInterestingness chain = ChainInterestingness({Op::kRelu});
  class SlowStart : public Interestingness {
   public:
    SlowStart(FunctionInterestingness& inner, int64_t start_nodes, std::atomic<bool>& answered)
        : inner_(inner), start_nodes_(start_nodes), answered_(answered) {}
    absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override {
      if (CountComputeNodes(candidate.graph) != start_nodes_) return inner_.Judge(candidate);
      absl::SleepFor(absl::Milliseconds(300));
      absl::StatusOr<InterestingnessResult> result = inner_.Judge(candidate);
      answered_ = true;
      return result;
    }

   private:
    FunctionInterestingness& inner_;
    int64_t start_nodes_;
    std::atomic<bool>& answered_;
  } slow(chain, start_nodes, start_answered);
  std::string sequence;
  for (int jobs : {1, 4}) {
    start_answered = false;
    MinifyOptions options;
    options.jobs = jobs;
    int reported = 0;
    bool reported_early = false;
    options.on_accept = [&](const Candidate&, const MinifyStats&) {
      ++reported;
      reported_early |= !start_answered;
    };
    absl::StatusOr<MinifyResult> result = Minify(start, slow, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FALSE(reported_early) << "-j " << jobs;
    EXPECT_GT(reported, 0);
    // -j 4 accepted steps while the start ran: they were reported as one.
    if (jobs > 1) EXPECT_LT(reported, result->stats.accepted_steps);
    if (jobs == 1) sequence = result->stats.accepted_sequence;
    EXPECT_EQ(result->stats.accepted_sequence, sequence) << "-j " << jobs;
  }
}

// Minimizes the relu out of 1,000-node DAGs (seeds 5-8) with -j 1 and -j 2,
// checks that -j 2 used exactly -j 1's calls and hands each result to `check`.
void MinifyRandomDagsAtJobs1And2(
    bool costly_oracle, const std::function<void(uint64_t, int, const MinifyResult&)>& check) {
  for (uint64_t seed : {5, 6, 7, 8}) {
    Candidate start = RandomDag({.seed = seed, .nodes = 1000});
    int64_t calls_j1 = 0;
    for (int jobs : {1, 2}) {
      FunctionInterestingness interestingness = ChainInterestingness({Op::kRelu});
      MinifyOptions options;
      options.jobs = jobs;
      options.costly_oracle = costly_oracle;
      absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
      ASSERT_TRUE(result.ok()) << result.status();
      if (jobs == 1) calls_j1 = result->stats.oracle_calls;
      EXPECT_EQ(result->stats.oracle_calls_used, calls_j1) << "seed " << seed;
      check(seed, jobs, *result);
    }
  }
}

// Speculation guesses that a proposal is answered like the one before it,
// so a search that keeps succeeding (cut_head shrinking to its culprit)
// wastes nothing: -j 2 stays within the single-culprit budget.
TEST(Engine, SpeculationStaysWithinTheBudget) {
  MinifyRandomDagsAtJobs1And2(false, [](uint64_t seed, int jobs, const MinifyResult& result) {
    EXPECT_LE(result.stats.oracle_calls, Budget(1, 1000)) << "seed " << seed << " -j " << jobs;
  });
}

// A costly oracle's schedule (window_scan and keep_cone before truncate_tail)
// reaches the same single relu, spending at most log2(N) calls more than the
// budget on probes that do not fail, and -j does not change it.
TEST(Engine, CostlyOracleScheduleReachesTheCulpritWithinTheBudget) {
  MinifyRandomDagsAtJobs1And2(true, [](uint64_t seed, int jobs, const MinifyResult& result) {
    EXPECT_EQ(result.stats.final_score.compute_nodes(), 1) << "seed " << seed;
    EXPECT_TRUE(HasChain(result.best.graph, {Op::kRelu})) << "seed " << seed;
    if (jobs == 1) {
      EXPECT_LE(result.stats.oracle_calls, Budget(1, 1000) + std::log2(1000.0))
          << "seed " << seed;
    }
    bool window = false;
    for (const ReductionStats& r : result.stats.reductions) window |= r.name == "window_scan";
    EXPECT_TRUE(window) << "seed " << seed;
  });
}

// An Interestingness that remembers the size of every candidate it judged.
class CountingInterestingness : public Interestingness {
 public:
  explicit CountingInterestingness(std::vector<Op> chain)
      : inner_(ChainInterestingness(std::move(chain))) {}
  absl::StatusOr<InterestingnessResult> Judge(const Candidate& candidate) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      judged_.push_back(ComputeScore(candidate).compute_nodes());
    }
    return inner_.Judge(candidate);
  }
  std::vector<int64_t> judged() {
    std::lock_guard<std::mutex> lock(mu_);
    return judged_;
  }

 private:
  FunctionInterestingness inner_;
  // std::mutex, which TSan sees (Debian's Abseil is built without it).
  std::mutex mu_;
  std::vector<int64_t> judged_;
};

// With a costly oracle the start is not judged again once a smaller
// candidate fails the expected way (its bundle was judged when captured);
// with a cheap one it is the first call.
TEST(Engine, CostlyOracleJudgesTheStartOnlyWhenNothingSmallerFails) {
  Candidate start = RandomDag({.seed = 6, .nodes = 400});
  for (bool costly : {false, true}) {
    for (int jobs : {1, 4}) {
      CountingInterestingness interestingness({Op::kRelu});
      MinifyOptions options;
      options.costly_oracle = costly;
      options.jobs = jobs;
      absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->stats.final_score.compute_nodes(), 1);
      std::vector<int64_t> judged = interestingness.judged();
      ASSERT_FALSE(judged.empty());
      if (costly) {
        EXPECT_EQ(absl::c_count(judged, 400), 0);
      } else {
        EXPECT_EQ(judged.front(), 400);
      }
    }
  }
}

// When no smaller candidate fails, the costly schedule still judges the
// start, and a start that does not fail is an error, as with a cheap oracle.
TEST(Engine, CostlyOracleStartThatDoesNotFailIsFailedPrecondition) {
  CountingInterestingness interestingness({Op::kErf});
  MinifyOptions options;
  options.costly_oracle = true;
  Candidate start = RandomDag({.nodes = 60});
  absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  // The start is the last candidate judged.
  ASSERT_FALSE(interestingness.judged().empty());
  EXPECT_EQ(interestingness.judged().back(), ComputeScore(start).compute_nodes());
}

// After progress the costly schedule starts again from window_scan, which so
// scans the kept window an eighth at a time down to a few nodes.
TEST(Engine, CostlyOracleScansTheKeptWindowAgain) {
  CountingInterestingness interestingness({Op::kRelu});
  MinifyOptions options;
  options.costly_oracle = true;
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.seed = 7, .nodes = 1000}), interestingness, options);
  ASSERT_TRUE(result.ok()) << result.status();
  int64_t windows_accepted = 0;
  for (const ReductionStats& r : result->stats.reductions) {
    if (r.name == "window_scan") windows_accepted = r.accepted;
  }
  EXPECT_GE(windows_accepted, 2);
  // No candidate judged is larger than the first window (1000 / 8 nodes).
  for (int64_t nodes : interestingness.judged()) EXPECT_LE(nodes, 125);
}

// A failure that needs two distant nodes (an exp and a relu, a third of the
// graph apart) shows in no window alone: window_scan then costs its probes
// once a pass, not once for every step the other reductions take.
TEST(Engine, CostlyOracleDoesNotRescanWindowsAfterEveryStepOfATwoNodeFailure) {
  auto has = [](const compiler::Graph& g, Op op) {
    for (int i = 0; i < g.num_nodes(); ++i) {
      if (g.node(compiler::NodeId(i)).op == op) return true;
    }
    return false;
  };
  for (uint64_t seed : {1, 2}) {
    Candidate start = RandomDag({.seed = seed, .nodes = 200, .planted = {Op::kExp}});
    int exp_at = -1;
    for (int i = 0; i < start.graph.num_nodes(); ++i) {
      if (start.graph.node(compiler::NodeId(i)).op == Op::kExp) exp_at = i;
    }
    int relu_at = -1;
    for (int i = 0; i < start.graph.num_nodes() && relu_at < 0; ++i) {
      const compiler::Node& n = start.graph.node(compiler::NodeId(i));
      if (n.operands.size() == 1 && n.op != Op::kExp && std::abs(i - exp_at) > 200 / 3) {
        relu_at = i;
      }
    }
    ASSERT_GE(relu_at, 0);
    start.graph.mutable_node(compiler::NodeId(relu_at)).op = Op::kRelu;
    FunctionInterestingness interestingness(
        [&](const Candidate& c) {
          return has(c.graph, Op::kExp) && has(c.graph, Op::kRelu) ? "fail" : "pass";
        },
        "fail");
    MinifyOptions options;
    options.costly_oracle = true;
    absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->stats.final_score.compute_nodes(), 2) << "seed " << seed;
    for (const ReductionStats& r : result->stats.reductions) {
      if (r.name == "window_scan") {
        EXPECT_LE(r.oracle_calls, 16) << "seed " << seed;
      }
    }
  }
}

TEST(Engine, StartThatDoesNotFailIsFailedPrecondition) {
  FunctionInterestingness interestingness = ChainInterestingness({Op::kErf});
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.nodes = 20}), interestingness, MinifyOptions());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Engine, CountsInvalidCandidatesAndCallsBackOnAccept) {
  FunctionInterestingness interestingness = ChainInterestingness({Op::kRelu});
  int accepted = 0;
  MinifyOptions options;
  options.on_accept = [&](const Candidate&, const MinifyStats&) { ++accepted; };
  absl::StatusOr<MinifyResult> result = Minify(RandomDag({.nodes = 60}), interestingness, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->stats.invalid_candidates, 0);
  EXPECT_EQ(accepted, result->stats.accepted_steps);
  EXPECT_GT(accepted, 0);
  EXPECT_LT(result->stats.final_score, result->stats.start_score);
  // The progress history: the start, then one point per accepted step, with
  // oracle calls growing and nodes never growing.
  const std::vector<ProgressPoint>& history = result->stats.history;
  ASSERT_EQ(history.size(), static_cast<size_t>(accepted) + 1);
  EXPECT_EQ(history.front().nodes, result->stats.start_score.compute_nodes());
  EXPECT_EQ(history.back().nodes, result->stats.final_score.compute_nodes());
  for (size_t i = 1; i < history.size(); ++i) {
    EXPECT_GE(history[i].oracle_calls, history[i - 1].oracle_calls);
    EXPECT_LE(history[i].nodes, history[i - 1].nodes);
  }
  EXPECT_EQ(result->stats.ToJson().Find("history")->size(), history.size());
}

TEST(Engine, StopsCleanlyWhenAsked) {
  std::atomic<bool> stop{false};
  FunctionInterestingness interestingness = ChainInterestingness({Op::kRelu});
  MinifyOptions options;
  options.stop = &stop;
  options.on_accept = [&](const Candidate&, const MinifyStats&) { stop = true; };
  absl::StatusOr<MinifyResult> result = Minify(RandomDag({.nodes = 200}), interestingness, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->stats.interrupted);
  EXPECT_EQ(result->stats.accepted_steps, 1);
  EXPECT_TRUE(HasChain(result->best.graph, {Op::kRelu}));
}

// The bounded cache: a 5,000-node graph never holds more than the limit of
// decoded recorded values, and the result is the same as with a large cache.
TEST(Engine, RecordedValuesStayWithinTheCacheLimit) {
  Candidate start = RandomDag({.seed = 21, .nodes = 5000, .planted = {Op::kExp, Op::kRelu}});
  std::string reference;
  for (int64_t limit : {int64_t{8}, int64_t{1} << 20}) {
    FunctionInterestingness interestingness = ChainInterestingness({Op::kExp, Op::kRelu});
    MinifyOptions options;
    options.value_cache.max_resident_values = limit;
    // Without the three reductions before it, cut_head starts on the whole
    // graph and records all 5,000 values.
    for (const ReductionInfo& info : AllReductions()) {
      if (info.name != "keep_cone" && info.name != "truncate_tail" &&
          info.name != "drop_outputs") {
        options.only.emplace_back(info.name);
      }
    }

    absl::StatusOr<MinifyResult> result = Minify(start, interestingness, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->stats.final_score.compute_nodes(), 2);
    const ValueCacheCounters& values = result->stats.values;
    EXPECT_GT(values.recorded, 5000);
    EXPECT_LE(values.peak_resident, limit);
    if (limit == 8) {
      EXPECT_GT(values.stored, 5000 - 8);  // all but the newest went to the store
      EXPECT_GT(values.loads, 0);
    } else {
      EXPECT_EQ(values.stored, 0);  // everything fit: no file written
    }
    std::string printed = compiler::PrintCanonical(result->best.graph);
    if (reference.empty()) reference = printed;
    EXPECT_EQ(printed, reference) << "limit " << limit;
  }
}

// A store that keeps nothing readable: every Get is DataLoss, as when the
// objects of the run's store were damaged on disk.
class DamagedStore : public repro::Store {
 public:
  explicit DamagedStore(repro::Store& inner) : inner_(inner) {}
  absl::StatusOr<Digest> Put(absl::string_view bytes,
                                    const repro::PutOptions& options) override {
    return inner_.Put(bytes, options);
  }
  absl::StatusOr<Digest> PutStream(repro::ByteSource& source,
                                          const repro::PutOptions& options) override {
    return inner_.PutStream(source, options);
  }
  absl::StatusOr<std::string> Get(const Digest& digest) override {
    return absl::DataLossError(absl::StrCat("object ", digest.Hex(), " is corrupt"));
  }
  absl::Status GetStream(const Digest& digest, repro::ByteSink&) override {
    return Get(digest).status();
  }
  absl::StatusOr<bool> Contains(const Digest& digest) override {
    return inner_.Contains(digest);
  }
  absl::StatusOr<repro::ObjectInfo> Stat(const Digest& digest) override {
    return inner_.Stat(digest);
  }
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) override {
    return inner_.ForEach(visit);
  }
  absl::Status Remove(const Digest& digest) override { return inner_.Remove(digest); }

 private:
  repro::Store& inner_;
};

TEST(Engine, UnreadableRecordedValueStopsTheRunWithItsError) {
  ScratchStore scratch;
  DamagedStore damaged(scratch);
  FunctionInterestingness interestingness = ChainInterestingness({Op::kRelu});
  MinifyOptions options;
  options.value_store = &damaged;
  options.value_cache.max_resident_values = 0;  // every value goes through the store
  absl::StatusOr<MinifyResult> result =
      Minify(RandomDag({.seed = 3, .nodes = 200}), interestingness, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StrContains(result.status().message(), "recorded value of node %"))
      << result.status();
  EXPECT_TRUE(absl::StrContains(result.status().message(), "is corrupt")) << result.status();
}

}  // namespace
}  // namespace rk::minifier
