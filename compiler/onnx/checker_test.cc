#include "compiler/onnx/checker.h"

#include <string>

#include "compiler/onnx/onnx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::onnx_io {
namespace {

onnx::ModelProto ReluModel(const std::string& input) {
  return MakeModel({MakeNode("Relu", {input}, {"y"}, "relu")}, {{"x", onnx::TensorProto::FLOAT, {4}}},
                   {{"y", onnx::TensorProto::FLOAT, {4}}});
}

TEST(CheckerTest, AcceptsAWellFormedModel) {
  EXPECT_TRUE(CheckModel(ReluModel("x")).ok());
}

TEST(CheckerTest, RejectsAnUndefinedValueWhereTheCheckerIsLinked) {
  // 'ghost' is no input, initializer or node output.
  const absl::Status s = CheckModel(ReluModel("ghost"));
  if (HaveOnnxChecker()) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("ONNX checker: "), std::string::npos) << s;
    EXPECT_NE(s.message().find("ghost"), std::string::npos) << s;
  } else {
    // --config=static: no checker to run; the importer's own checks remain.
    EXPECT_TRUE(s.ok()) << s;
  }
}

}  // namespace
}  // namespace rk::compiler::onnx_io
