// The generator (compiler/generator) avoids undefined behavior: random graphs
// of many seeds, on the inputs their specs draw, evaluate without any
// (undefined_behavior.h), natively and in fp64. So the fuzzer's cannot_judge
// "undefined behavior at ..." stays rare and a finding is never one.
//
// REPROKIT_UB_SEEDS=N runs N seeds instead of the default and prints, per
// kind, how many graphs met undefined behavior (the measurement in
// docs/DIFFERENTIAL.md); the test still fails on any.
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "compiler/generator/generator.h"
#include "compiler/ir/printer.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

// "integer division by zero (element 3: ...)" -> "integer division by zero".
std::string Kind(const std::string& what) {
  std::string kind = what.substr(0, what.find(" ("));
  if (kind.rfind("cast of ", 0) == 0) return "float -> int cast out of range";
  if (kind.rfind("gather index", 0) == 0) return "gather index out of range";
  return kind;
}

int Seeds() {
  const char* env = std::getenv("REPROKIT_UB_SEEDS");
  return env != nullptr ? std::atoi(env) : 1500;
}

void ExpectNoUndefinedBehavior(const generator::GeneratorOptions& options, uint64_t first_seed) {
  const int seeds = Seeds();
  std::map<std::string, int> kinds;
  int undefined = 0;
  std::string first;
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    absl::StatusOr<generator::GeneratedGraph> generated = generator::Generate(seed, options);
    ASSERT_TRUE(generated.ok()) << generated.status();
    const std::vector<HostTensor> inputs = generated->MakeInputs(seed);
    EvalOptions fp64;
    fp64.fp64 = true;
    for (const EvalOptions& eval : {EvalOptions{}, fp64}) {
      absl::StatusOr<EvalResult> r = Evaluate(generated->graph, inputs, eval);
      ASSERT_TRUE(r.ok()) << r.status();
      if (!r->undefined.has_value()) continue;
      ++undefined;
      ++kinds[Kind(r->undefined->what)];
      if (first.empty()) {
        first = "seed " + std::to_string(seed) + ": " + r->undefined->Message() + "\n" +
                PrintInline(generated->graph);
      }
      break;
    }
  }
  std::cout << "graphs " << seeds << " with undefined behavior " << undefined << "\n";
  for (const auto& [kind, n] : kinds) std::cout << "  " << kind << ": " << n << "\n";
  EXPECT_EQ(undefined, 0) << first;
}

TEST(GeneratedGraphsDefinedTest, FuzzDefaults) {
  generator::GeneratorOptions options;
  options.nodes = 16;
  ExpectNoUndefinedBehavior(options, 1);
}

TEST(GeneratedGraphsDefinedTest, LargerGraphs) {
  generator::GeneratorOptions options;
  options.nodes = 40;
  ExpectNoUndefinedBehavior(options, 100000);
}

}  // namespace
}  // namespace rk::compiler
