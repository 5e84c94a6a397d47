#include "compiler/passes/pass_test_util.h"

#include <cmath>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler {
namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

bool Close(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (tolerance == 0) return SameBits(a, b);
  if (a == b) return true;
  return std::abs(a - b) <= tolerance * (1 + std::abs(b));
}

::testing::AssertionResult CompareTensors(size_t index, const HostTensor& want,
                                          const HostTensor& got, double tolerance) {
  if (want.type() != got.type()) {
    return ::testing::AssertionFailure() << "output " << index << ": type "
                                         << got.type().ToString() << ", want "
                                         << want.type().ToString();
  }
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const bool same = IsFloat(want.dtype())
                          ? Close(got.GetDouble(i), want.GetDouble(i), tolerance)
                          : got.GetInt(i) == want.GetInt(i);
    if (!same) {
      return ::testing::AssertionFailure()
             << "output " << index << " element " << i << ": got " << got.GetDouble(i)
             << ", want " << want.GetDouble(i) << "\n got " << got.Summary() << "\nwant "
             << want.Summary();
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

absl::StatusOr<PassRun> RunPass(PassFn pass, std::string_view text,
                                const CompileOptions& options, bool exact) {
  absl::StatusOr<Graph> input = Parse(text);
  if (!input.ok()) return input.status();
  absl::StatusOr<PassContext> context = PassContext::Create(options);
  if (!context.ok()) return context.status();
  PassRun run;
  run.graph = *input;
  absl::StatusOr<bool> changed = pass(run.graph, *context);
  if (!changed.ok()) return changed.status();
  run.changed = *changed;
  run.log = context->log();
  if (absl::Status s = Verify(run.graph); !s.ok()) {
    return absl::InternalError(absl::StrCat("pass output invalid: ", s.message(), "\n",
                                            PrintInline(run.graph)));
  }
  if (!run.changed && run.graph != *input) {
    return absl::InternalError("pass reported no change but changed the graph");
  }
  if (exact) {
    ::testing::AssertionResult same = SameValues(*input, run.graph, RandomInputs(*input, 7));
    if (!same) return absl::InternalError(absl::StrCat("pass changed values: ", same.message()));
  }
  return run;
}

::testing::AssertionResult GraphMatches(const Graph& actual, std::string_view expected) {
  absl::StatusOr<Graph> want = Parse(expected);
  if (!want.ok()) {
    return ::testing::AssertionFailure() << "expected text does not parse: " << want.status();
  }
  const std::string got_text = PrintInline(actual);
  const std::string want_text = PrintInline(*want);
  if (got_text == want_text) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got:\n" << got_text << "want:\n" << want_text;
}

std::vector<HostTensor> RandomInputs(const Graph& graph, uint64_t seed) {
  std::vector<HostTensor> inputs;
  for (NodeId id : graph.inputs()) {
    const TensorType& type = graph.type(id);
    RandomSpec spec;
    if (IsFloat(type.dtype)) {
      spec.low = -2;
      spec.high = 2;
    } else {
      spec.low = -5;
      spec.high = 5;
    }
    inputs.push_back(HostTensor::Random(type, seed * 1000 + id.value, spec));
  }
  return inputs;
}

::testing::AssertionResult SameValues(const Graph& expected, const Graph& actual,
                                      const std::vector<HostTensor>& inputs, double tolerance) {
  absl::StatusOr<EvalResult> want = Evaluate(expected, inputs);
  absl::StatusOr<EvalResult> got = Evaluate(actual, inputs);
  if (!want.ok()) return ::testing::AssertionFailure() << "expected graph: " << want.status();
  if (!got.ok()) return ::testing::AssertionFailure() << "actual graph: " << got.status();
  if (want->outputs.size() != got->outputs.size()) {
    return ::testing::AssertionFailure() << "output count " << got->outputs.size() << ", want "
                                         << want->outputs.size();
  }
  for (size_t i = 0; i < want->outputs.size(); ++i) {
    ::testing::AssertionResult same =
        CompareTensors(i, want->outputs[i], got->outputs[i], tolerance);
    if (!same) return same;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace rk::compiler
