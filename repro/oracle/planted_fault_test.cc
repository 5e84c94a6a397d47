#include "repro/oracle/planted_fault.h"

#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace rk::repro {
namespace {

compiler::CompileOptions WithFaults(std::vector<std::string> faults) {
  compiler::CompileOptions o;
  o.faults = std::move(faults);
  return o;
}

TEST(PlantedFaultTest, ValueFaultOnAnOpOfTheGraph) {
  absl::StatusOr<compiler::Graph> g = compiler::Parse(R"(graph @g(%x: f32[4]) {
  %c = cast(%x) {dtype=f64} : f64[4]
  return %c
})");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(PlantsValueFault(*g, WithFaults({"cast:accuracy"})));
  EXPECT_FALSE(PlantsValueFault(*g, WithFaults({"relu:accuracy"}))) << "no relu in the graph";
  EXPECT_FALSE(PlantsValueFault(*g, WithFaults({"cast:crash"}))) << "not a value fault";
  EXPECT_TRUE(PlantsValueFault(*g, WithFaults({"fuse:wrong_index"})));
  EXPECT_FALSE(PlantsValueFault(*g, {}));
}

}  // namespace
}  // namespace rk::repro
