#include "minifier/recorded_values.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "minifier/minifier_test_util.h"
#include "minifier/reductions/cut_head.h"
#include "minifier/reductions/probdd_nodes.h"
#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::HostTensor;
using compiler::NodeId;

constexpr char kChain[] = R"(
graph @g(%x: f32[4,8], %y: f32[4,8]) {
  %a = exp(%x) : f32[4,8]
  %b = mul(%a, %y) : f32[4,8]
  %c = sin(%b) : f32[4,8]
  %d = relu(%c) : f32[4,8]
  %e = add(%d, %a) : f32[4,8]
  return %e
}
)";

TEST(RecordedValues, RoundTripThroughTheStore) {
  Candidate c = ParseCandidate(kChain);
  std::vector<HostTensor> expected = *RecordValues(c, false);
  // A cache of 0 values: every value goes into the store at once.
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 0});
  ASSERT_EQ(recorded.values->num_nodes(), c.graph.num_nodes());
  EXPECT_EQ(recorded.values->counters().stored, c.graph.num_nodes());
  for (int i = 0; i < c.graph.num_nodes(); ++i) {
    absl::StatusOr<HostTensor> value = recorded.values->Get(NodeId(i));
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_TRUE(value->BitwiseEqual(expected[i])) << "node " << i;
    EXPECT_TRUE(recorded.values->stored(NodeId(i)));
    EXPECT_TRUE(*(*recorded.store->Local())->Contains(recorded.values->digest(NodeId(i))));
  }
  EXPECT_EQ(recorded.values->counters().recorded, c.graph.num_nodes());
  EXPECT_EQ(recorded.values->counters().loads, c.graph.num_nodes());
  // The last value read stays (a cache always keeps the value it returned).
  ASSERT_TRUE(recorded.values->Get(NodeId(6)).ok());
  EXPECT_EQ(recorded.values->counters().hits, 1);
  EXPECT_TRUE(recorded.values->status().ok());
}

TEST(RecordedValues, NewestStayResidentAndSpillWhenEvicted) {
  Candidate c = ParseCandidate(kChain);
  std::vector<HostTensor> expected = *RecordValues(c, false);
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 3});
  // Nodes 4, 5, 6 (the newest) are resident and not yet stored.
  EXPECT_EQ(recorded.values->resident(), 3);
  for (int i = 0; i < c.graph.num_nodes(); ++i) {
    EXPECT_EQ(recorded.values->stored(NodeId(i)), i < 4) << i;
  }
  EXPECT_EQ(recorded.values->counters().stored, 4);
  // Reading node 0 evicts the least recently used resident value (node 6,
  // inserted first), which goes into the store and reads back bit for bit.
  ASSERT_TRUE(recorded.values->Get(NodeId(0)).ok());
  EXPECT_TRUE(recorded.values->stored(NodeId(6)));
  EXPECT_TRUE(*(*recorded.store->Local())->Contains(recorded.values->digest(NodeId(6))));
  absl::StatusOr<HostTensor> six = recorded.values->Get(NodeId(6));
  ASSERT_TRUE(six.ok()) << six.status();
  EXPECT_TRUE(six->BitwiseEqual(expected[6]));
  EXPECT_EQ(recorded.values->counters().loads, 2);
}

TEST(RecordedValues, CacheHoldsAtMostItsLimit) {
  Candidate c = ParseCandidate(kChain);
  std::vector<HostTensor> expected = *RecordValues(c, false);
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 2});
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < c.graph.num_nodes(); ++i) {
      absl::StatusOr<HostTensor> value = recorded.values->Get(NodeId(i));
      ASSERT_TRUE(value.ok()) << value.status();
      EXPECT_TRUE(value->BitwiseEqual(expected[i]));
      EXPECT_LE(recorded.values->resident(), 2);
    }
  }
  EXPECT_EQ(recorded.values->counters().peak_resident, 2);
  // Every read missed: the cycle is longer than the cache.
  EXPECT_GE(recorded.values->counters().loads, 2 * c.graph.num_nodes() - 2);
}

TEST(RecordedValues, ByteLimitEvictsToo) {
  Candidate c = ParseCandidate(kChain);
  // One f32[4,8] value is 128 bytes.
  TestValues recorded = RecordTestValues(c, {.max_resident_bytes = 300});
  for (int i = 0; i < c.graph.num_nodes(); ++i) ASSERT_TRUE(recorded.values->Get(NodeId(i)).ok());
  EXPECT_EQ(recorded.values->resident(), 2);
}

TEST(RecordedValues, MissingBlobIsNotFoundNamingTheNode) {
  Candidate c = ParseCandidate(kChain);
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 0});
  ASSERT_TRUE((*recorded.store->Local())->Remove(recorded.values->digest(NodeId(4))).ok());
  absl::StatusOr<HostTensor> value = recorded.values->Get(NodeId(4));
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(value.status().message(), "recorded value of node %c"))
      << value.status();
  EXPECT_TRUE(absl::StrContains(value.status().message(),
                                recorded.values->digest(NodeId(4)).Hex()));
  EXPECT_EQ(recorded.values->status().code(), absl::StatusCode::kNotFound);
  // Other nodes still read.
  EXPECT_TRUE(recorded.values->Get(NodeId(2)).ok());
}

TEST(RecordedValues, CorruptBlobIsDataLossAndACutReportsIt) {
  Candidate c = ParseCandidate(kChain);
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 0});
  std::string path = (*recorded.store->Local())->ObjectPath(recorded.values->digest(NodeId(5)));
  std::filesystem::permissions(path, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "not an object";
  }
  GraphEdit edit(c.graph);
  edit.ToInput(NodeId(5));  // %d: the add then reads the cut value
  absl::StatusOr<Candidate> cut = ApplyEdit(c, recorded.values.get(), edit);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kDataLoss) << cut.status();
  EXPECT_TRUE(absl::StrContains(cut.status().message(), "recorded value of node %d"))
      << cut.status();
  EXPECT_FALSE(recorded.values->status().ok());
}

TEST(RecordedValues, IdenticalValuesShareOneBlob) {
  Candidate c = ParseCandidate(R"(
graph @g(%x: f32[4,8]) {
  %a = relu(%x) : f32[4,8]
  %b = abs(%a) : f32[4,8]
  return %b
}
)");
  // abs(relu(x)) == relu(x) bit for bit.
  TestValues recorded = RecordTestValues(c);
  EXPECT_EQ(recorded.values->digest(NodeId(1)), recorded.values->digest(NodeId(2)));
}

// A 5,000-node graph: every cut_head probe and a probdd_nodes proposal removing
// half the nodes read their values through an 8-value cache, which never
// holds more, and the cut inputs carry exactly the recorded values.
TEST(RecordedValues, LargeGraphCutsHoldAtMostTheCacheLimit) {
  Candidate c = RandomDag({.seed = 5, .nodes = 5000});
  std::vector<HostTensor> expected = *RecordValues(c, false);
  TestValues recorded = RecordTestValues(c, {.max_resident_values = 8});
  ASSERT_EQ(recorded.values->counters().recorded, c.graph.num_nodes());
  EXPECT_EQ(recorded.values->resident(), 8);
  EXPECT_EQ(recorded.values->counters().stored, c.graph.num_nodes() - 8);
  ReductionPlan cut_head = CutHead(ReductionInput{c, recorded.values.get()});
  int built = 0;
  for (int target = 0; target < cut_head.num_targets; target += 397) {
    absl::StatusOr<Candidate> cut = cut_head.build(std::vector<int>{target});
    ASSERT_TRUE(cut.ok()) << cut.status();
    ++built;
    EXPECT_LE(recorded.values->resident(), 8);
  }
  std::vector<NodeId> compute = ComputeNodeIds(c.graph);
  std::vector<int> half;
  for (int t = 0; t < static_cast<int>(compute.size()); t += 2) half.push_back(t);
  ReductionPlan probdd = ProbDdNodes(ReductionInput{c, recorded.values.get()});
  absl::StatusOr<Candidate> removed = probdd.build(half);
  ASSERT_TRUE(removed.ok()) << removed.status();
  // Every new input (after the original ones) is a removed node's value.
  const int original_inputs = static_cast<int>(c.inputs.size());
  ASSERT_GT(removed->inputs.size(), 1000u);
  for (size_t k = original_inputs; k < removed->inputs.size(); ++k) {
    const std::string& name = removed->graph.node(removed->graph.inputs()[k]).name;
    // Unnamed nodes are cut to inputs named v<id>.
    ASSERT_EQ(name[0], 'v') << name;
    int id = std::stoi(name.substr(1));
    EXPECT_TRUE(removed->inputs[k].BitwiseEqual(expected[id])) << name;
  }
  ValueCacheCounters counters = recorded.values->counters();
  EXPECT_LE(counters.peak_resident, 8);
  EXPECT_EQ(recorded.values->resident(), 8);
  EXPECT_GT(counters.loads, 1000);
  EXPECT_GT(built, 10);
}

TEST(RecordedValues, ValuesThatFitTheCacheTouchNoDisk) {
  Candidate c = ParseCandidate(kChain);
  TestValues recorded = RecordTestValues(c);
  for (int i = 0; i < c.graph.num_nodes(); ++i) ASSERT_TRUE(recorded.values->Get(NodeId(i)).ok());
  EXPECT_EQ(recorded.values->counters().stored, 0);
  EXPECT_EQ(recorded.store->root(), "");  // the scratch directory was never made
}

TEST(ScratchStore, DirectoryIsMadeOnUseAndRemovedAfter) {
  std::string root;
  {
    ScratchStore scratch;
    EXPECT_EQ(scratch.root(), "");
    ASSERT_TRUE(scratch.Put("bytes").ok());
    root = scratch.root();
    ASSERT_FALSE(root.empty());
    EXPECT_TRUE(std::filesystem::is_directory(root));
  }
  EXPECT_FALSE(std::filesystem::exists(root));
}

// Defect: a minify run killed with SIGKILL left its reprokit-values-* directory
// in TMPDIR for good. The next scratch store removes it.
TEST(ScratchStore, DirectoryOfAKilledRunIsRemovedByTheNext) {
  std::string tmp = std::string(::testing::TempDir()) + "/scratch_kill";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  ASSERT_EQ(::setenv("TMPDIR", tmp.c_str(), 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    ScratchStore scratch;
    if (!scratch.Put("bytes of a recorded value").ok()) ::_exit(3);
    std::string root = scratch.root() + "\n";
    if (::write(fds[1], root.data(), root.size()) < 0) ::_exit(4);
    ::pause();  // killed here
    ::_exit(0);
  }
  ::close(fds[1]);
  char buffer[4096];
  ssize_t n = ::read(fds[0], buffer, sizeof buffer);
  ::close(fds[0]);
  ASSERT_GT(n, 1);
  std::string killed_root(buffer, n - 1);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(std::filesystem::is_directory(killed_root));

  {
    ScratchStore scratch;
    ASSERT_TRUE(scratch.Put("bytes").ok());
    EXPECT_FALSE(std::filesystem::exists(killed_root));
    EXPECT_EQ(std::filesystem::path(scratch.root()).parent_path(), std::filesystem::path(tmp));
  }
  ::unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
}

}  // namespace
}  // namespace rk::minifier
