#include "minifier/candidate.h"

#include <map>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/printer.h"
#include "compiler/options/compile_options.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/pass_manager.h"

namespace rk::minifier {
namespace {

using compiler::DType;
using compiler::Graph;
using compiler::Node;
using compiler::NodeId;
using compiler::Op;
using compiler::OpKind;

int64_t PrimitiveComputeNodes(const Graph& graph) {
  int64_t count = 0;
  for (const Node& node : graph.nodes()) {
    if (!IsSourceOp(node.op)) ++count;
  }
  return count;
}

// One composite node alone in a graph, lowered: how many primitives it
// stands for. A composite that cannot be lowered counts as a large node.
int64_t LoweredSize(const Graph& graph, const Node& node) {
  constexpr int64_t kUnknownComposite = 16;
  compiler::GraphBuilder builder("composite");
  std::vector<NodeId> operands;
  for (size_t i = 0; i < node.operands.size(); ++i) {
    operands.push_back(builder.Input(absl::StrCat("a", i), graph.type(node.operands[i])));
  }
  absl::StatusOr<NodeId> id = builder.Add(node.op, operands, node.attrs);
  if (!id.ok() || !builder.Output(*id).ok()) return kUnknownComposite;
  absl::StatusOr<Graph> single = builder.Build();
  if (!single.ok()) return kUnknownComposite;
  std::string key = compiler::PrintCanonical(*single);
  static std::mutex mutex;
  static std::map<std::string, int64_t>* sizes = new std::map<std::string, int64_t>();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes->find(key);
    if (it != sizes->end()) return it->second;
  }
  int64_t size = kUnknownComposite;
  absl::StatusOr<compiler::PassContext> context =
      compiler::PassContext::Create(compiler::CompileOptions());
  if (context.ok() && compiler::Decompose(*single, *context).ok()) {
    size = PrimitiveComputeNodes(*single);
  }
  std::lock_guard<std::mutex> lock(mutex);
  (*sizes)[key] = size;
  return size;
}

int DTypeDistance(DType dtype) {
  switch (dtype) {
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kF64:
    case DType::kI64:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

std::string Score::ToString() const {
  return absl::StrCat("nodes=", terms[0], " elements=", terms[1], " total=", terms[2],
                      " outputs=", terms[3], " dtype=", terms[4], " rank=", terms[5]);
}

bool IsSourceOp(Op op) { return compiler::GetOpKind(op) == OpKind::kSource; }

int64_t CountComputeNodes(const Graph& graph) {
  int64_t count = 0;
  for (const Node& node : graph.nodes()) {
    if (IsSourceOp(node.op)) continue;
    count += compiler::GetOpKind(node.op) == OpKind::kComposite ? LoweredSize(graph, node) + 1
                                                                 : 1;
  }
  return count;
}

Score ComputeScore(const Candidate& candidate) {
  const Graph& graph = candidate.graph;
  Score score;
  score.terms[0] = CountComputeNodes(graph);
  for (const Node& node : graph.nodes()) {
    if (node.op == Op::kInput) {
      score.terms[1] += node.type.num_elements();
      score.terms[5] += node.type.shape.rank();
    }
    score.terms[4] += DTypeDistance(node.type.dtype);
  }
  score.terms[2] = graph.num_nodes();
  score.terms[3] = static_cast<int64_t>(graph.outputs().size());
  return score;
}

std::string CandidateKey(const Candidate& candidate) {
  std::string material = compiler::PrintCanonical(candidate.graph);
  for (const compiler::HostTensor& input : candidate.inputs) {
    absl::Span<const uint8_t> bytes = input.bytes();
    material += "\n";
    material += input.type().ToString();
    material += Sha256Hex(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return Sha256Hex(material);
}

}  // namespace rk::minifier
