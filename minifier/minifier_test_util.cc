#include "minifier/minifier_test_util.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "minifier/rewrite.h"

namespace rk::minifier {
namespace {

using compiler::DType;
using compiler::Graph;
using compiler::GraphBuilder;
using compiler::NodeId;
using compiler::Op;
using compiler::TensorType;

constexpr Op kFillerUnary[] = {Op::kNeg, Op::kAbs, Op::kSin, Op::kCos, Op::kTanh, Op::kSigmoid};
constexpr Op kFillerBinary[] = {Op::kMul, Op::kMaximum, Op::kMinimum};

template <typename T>
T ValueOrDie(absl::StatusOr<T> value) {
  if (!value.ok()) {
    std::cerr << "test_util: " << value.status() << "\n";
    std::abort();
  }
  return *std::move(value);
}

bool IsFillerOp(Op op, const std::vector<Op>& planted) {
  return std::find(planted.begin(), planted.end(), op) == planted.end();
}

}  // namespace

Candidate ParseCandidate(std::string_view text) {
  Graph graph = ValueOrDie(compiler::Parse(text));
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(graph, 0);
  return Candidate{std::move(graph), std::move(inputs)};
}

std::string PrintCandidate(const Candidate& candidate) {
  return compiler::PrintInline(candidate.graph);
}

TestValues RecordTestValues(const Candidate& candidate, ValueCacheLimits limits) {
  TestValues recorded;
  recorded.store = std::make_unique<ScratchStore>();
  recorded.values = ValueOrDie(RecordedValues::Put(
      candidate.graph, ValueOrDie(RecordValues(candidate, false)), *recorded.store,
      limits));
  return recorded;
}

int NumTargets(std::string_view reduction, const Candidate& candidate) {
  const ReductionInfo* info = FindReduction(reduction);
  TestValues recorded = RecordTestValues(candidate);
  return info->plan(ReductionInput{candidate, recorded.values.get()}).num_targets;
}

std::string ApplyReduction(std::string_view reduction, const Candidate& candidate,
                           std::vector<int> chosen) {
  const ReductionInfo* info = FindReduction(reduction);
  if (info == nullptr) return "error: unknown reduction";
  TestValues recorded = RecordTestValues(candidate);
  ReductionPlan plan = info->plan(ReductionInput{candidate, recorded.values.get()});
  absl::StatusOr<Candidate> built = plan.build(chosen);
  if (!built.ok()) return absl::StrCat("error: ", built.status().message());
  return PrintCandidate(*built);
}

Candidate RandomDag(const RandomDagOptions& options) {
  std::mt19937_64 rng(options.seed);
  GraphBuilder builder("dag");
  TensorType type(DType::kF32, {4, 8});
  std::vector<NodeId> values;
  for (int i = 0; i < options.inputs; ++i) values.push_back(builder.Input(absl::StrCat("x", i), type));
  const int planted_at = static_cast<int>(
      rng() % std::max<uint64_t>(1, options.nodes - options.planted.size() + 1));
  auto pick = [&]() {
    int n = static_cast<int>(values.size());
    int w = std::min(n, options.window);
    if (rng() % 8 == 0) return values[rng() % n];
    return values[n - 1 - static_cast<int>(rng() % w)];
  };
  int made = 0;
  while (made < options.nodes) {
    if (made == planted_at) {
      NodeId previous = pick();
      for (Op op : options.planted) {
        std::vector<NodeId> operands = {previous};
        if (compiler::OpArity(op) == 2) {
          // Two different operands, so a fault that swaps them shows.
          NodeId other = pick();
          for (int tries = 0; other == previous && tries < 8; ++tries) other = pick();
          operands.push_back(other);
        }
        previous = ValueOrDie(builder.Add(op, operands));
        values.push_back(previous);
        ++made;
      }
      continue;
    }
    bool binary = rng() % 3 == 0;
    Op op = binary ? kFillerBinary[rng() % 3] : kFillerUnary[rng() % 6];
    if (!IsFillerOp(op, options.planted)) {
      // Another filler of the same arity, so the planted op stays unique.
      for (Op other : kFillerUnary) {
        if (!binary && IsFillerOp(other, options.planted)) op = other;
      }
      for (Op other : kFillerBinary) {
        if (binary && IsFillerOp(other, options.planted)) op = other;
      }
    }
    std::vector<NodeId> operands = {pick()};
    if (binary) operands.push_back(pick());
    values.push_back(ValueOrDie(builder.Add(op, operands)));
    ++made;
  }
  Graph partial = builder.graph();
  std::vector<std::vector<NodeId>> users = partial.ComputeUsers();
  for (int i = options.inputs; i < partial.num_nodes(); ++i) {
    if (users[i].empty()) (void)builder.Output(NodeId(i));
  }
  Graph graph = ValueOrDie(builder.Build());
  std::vector<compiler::HostTensor> inputs = compiler::SeededInputs(graph, options.seed);
  return Candidate{std::move(graph), std::move(inputs)};
}

bool HasChain(const Graph& graph, const std::vector<Op>& ops) {
  if (ops.empty()) return true;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    NodeId id(i);
    if (graph.node(id).op != ops.back()) continue;
    bool match = true;
    for (int k = static_cast<int>(ops.size()) - 2; k >= 0 && match; --k) {
      const std::vector<NodeId>& operands = graph.node(id).operands;
      if (operands.empty() || graph.node(operands[0]).op != ops[k]) {
        match = false;
      } else {
        id = operands[0];
      }
    }
    if (match) return true;
  }
  return false;
}

}  // namespace rk::minifier
