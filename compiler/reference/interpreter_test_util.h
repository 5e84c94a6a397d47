// Helpers for the reference interpreter's tests: tensors from value lists,
// values back as vectors, parsing and evaluating small graphs in one call, and
// exact comparison that treats NaN as equal to NaN.
#ifndef REPROKIT_COMPILER_REFERENCE_INTERPRETER_TEST_UTIL_H_
#define REPROKIT_COMPILER_REFERENCE_INTERPRETER_TEST_UTIL_H_

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/parser.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline HostTensor T(DType dtype, Shape shape, const std::vector<double>& values) {
  HostTensor t(TensorType(dtype, std::move(shape)));
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.num_elements());
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

inline HostTensor TI(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  HostTensor t(TensorType(dtype, std::move(shape)));
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.num_elements());
  for (size_t i = 0; i < values.size(); ++i) t.SetInt(static_cast<int64_t>(i), values[i]);
  return t;
}

inline std::vector<double> D(const HostTensor& t) {
  std::vector<double> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = t.GetDouble(i);
  return v;
}

inline std::vector<int64_t> I(const HostTensor& t) {
  std::vector<int64_t> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = t.GetInt(i);
  return v;
}

inline Graph MustParse(const std::string& text) {
  absl::StatusOr<Graph> g = Parse(text);
  EXPECT_TRUE(g.ok()) << g.status() << "\n" << text;
  return g.ok() ? *std::move(g) : Graph();
}

inline EvalResult MustEval(const std::string& text, const std::vector<HostTensor>& inputs,
                    const EvalOptions& options = {}) {
  absl::StatusOr<EvalResult> r = Evaluate(MustParse(text), inputs, options);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << text;
  return r.ok() ? *std::move(r) : EvalResult();
}

// The first output of a graph.
inline HostTensor Eval1(const std::string& text, const std::vector<HostTensor>& inputs,
                 const EvalOptions& options = {}) {
  EvalResult r = MustEval(text, inputs, options);
  return r.outputs.empty() ? HostTensor() : r.outputs[0];
}

// Exact comparison (or within `tol`), NaN equal to NaN, -0 equal to +0.
inline void ExpectValues(const std::vector<double>& got, const std::vector<double>& want,
                  double tol = 0.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (tol == 0.0 || std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
    }
  }
}

inline std::string UnaryGraph(const std::string& op, const std::string& type) {
  return "graph @g(%x: " + type + ") {\n  %y = " + op + "(%x) : " + type +
         "\n  return %y\n}\n";
}

inline std::string BinaryGraph(const std::string& op, const std::string& a, const std::string& b,
                        const std::string& out) {
  return "graph @g(%a: " + a + ", %b: " + b + ") {\n  %y = " + op + "(%a, %b) : " + out +
         "\n  return %y\n}\n";
}

}  // namespace rk::compiler::reference_test

#endif  // REPROKIT_COMPILER_REFERENCE_INTERPRETER_TEST_UTIL_H_
