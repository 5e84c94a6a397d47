#include "compiler/driver/compile_test_util.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler {

std::vector<HostTensor> SeededInputs(const Graph& graph, uint64_t seed, const RandomSpec& spec) {
  std::vector<HostTensor> inputs;
  for (NodeId id : graph.inputs()) {
    RandomSpec s = spec;
    if (!IsFloat(graph.type(id).dtype) && spec.high - spec.low < 8) {
      s.low = -20;
      s.high = 20;
    }
    inputs.push_back(HostTensor::Random(graph.type(id), seed + id.value, s));
  }
  return inputs;
}

double MaxRelativeError(const HostTensor& got, const HostTensor& want, double atol) {
  double worst = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = got.GetDouble(i), b = want.GetDouble(i);
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b)) return INFINITY;
      continue;
    }
    if (a == b) continue;
    worst = std::max(worst, std::fabs(a - b) / (std::fabs(b) + atol));
  }
  return worst;
}

absl::StatusOr<std::string> CompareWithReference(const std::string& text,
                                                 const CompileOptions& options, double rtol,
                                                 const RandomSpec& spec, uint64_t seed) {
  absl::StatusOr<Graph> graph = Parse(text);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<Executable> exe = Compile(*graph, options);
  if (!exe.ok()) return exe.status();
  std::vector<HostTensor> inputs = SeededInputs(*graph, seed, spec);
  absl::StatusOr<std::vector<HostTensor>> got = exe->Run(inputs);
  if (!got.ok()) return got.status();
  absl::StatusOr<EvalResult> want = Evaluate(*graph, inputs);
  if (!want.ok()) return want.status();
  for (size_t i = 0; i < got->size(); ++i) {
    const HostTensor& g = (*got)[i];
    const HostTensor& w = want->outputs[i];
    if (g.type() != w.type()) {
      return absl::StrCat("output ", i, ": type ", g.type().ToString(), " vs ", w.type().ToString());
    }
    const double err = MaxRelativeError(g, w, rtol < 1e-3 ? 1e-6 : 1e-3);
    if (err > rtol) {
      return absl::StrCat("output ", i, ": relative error ", err, "\n got ", g.Summary(),
                          "\nwant ", w.Summary());
    }
  }
  return std::string();
}

}  // namespace rk::compiler
