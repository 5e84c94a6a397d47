#include "repro/oracle/memory_budget.h"

#include "absl/strings/str_format.h"
#include "compiler/ir/dtype.h"

namespace rk::repro {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Sums {
  double native = 0;  // every value in its own dtype
  double fp64 = 0;    // every value with floats promoted to f64
  double inputs = 0;  // the graph's inputs in their own dtypes
};

Sums SumValues(const compiler::Graph& graph) {
  Sums s;
  for (const compiler::Node& node : graph.nodes()) {
    const double elements = static_cast<double>(node.type.num_elements());
    const double size = compiler::DTypeSize(node.type.dtype);
    s.native += elements * size;
    s.fp64 += elements * (compiler::IsFloat(node.type.dtype) ? 8.0 : size);
    if (node.op == compiler::Op::kInput) s.inputs += elements * size;
  }
  return s;
}

const char* Describe(MemoryUse use) {
  switch (use) {
    case MemoryUse::kEvaluate: return "evaluating the graph";
    case MemoryUse::kEvaluateFp64: return "evaluating the graph in fp64";
    case MemoryUse::kRun: return "running the graph";
    case MemoryUse::kJudge: return "judging the graph (compiled runs, native and fp64 references)";
  }
  return "?";
}

}  // namespace

double EstimateBytes(const compiler::Graph& graph, MemoryUse use) {
  const Sums s = SumValues(graph);
  switch (use) {
    case MemoryUse::kEvaluate: return s.native;
    case MemoryUse::kEvaluateFp64: return s.inputs + s.fp64;
    case MemoryUse::kRun: return s.native;
    // Compiled buffers and the native reference in the graph's dtypes; the
    // fp64 reference and the fp64 recompile promoted.
    case MemoryUse::kJudge: return 2 * s.native + 2 * s.fp64;
  }
  return s.native;
}

absl::Status CheckMemoryBudget(const compiler::Graph& graph, MemoryUse use, int64_t limit_bytes) {
  if (limit_bytes <= 0) return absl::OkStatus();
  const double bytes = EstimateBytes(graph, use);
  if (bytes <= static_cast<double>(limit_bytes)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "graph @%s: %s needs %.1f GiB, limit %.1f GiB (its values are too large to hold)",
      graph.name(), Describe(use), bytes / kGiB, static_cast<double>(limit_bytes) / kGiB));
}

}  // namespace rk::repro
