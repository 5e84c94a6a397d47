#include "repro/bisect/bisect_test_util.h"

#include "compiler/ir/parser.h"
#include "compiler/ir/seeded_inputs.h"

namespace rk::repro {

absl::StatusOr<std::unique_ptr<TestTarget>> MakeTestTarget(std::string_view graph_text,
                                                           const std::string& options_text,
                                                           bool isolate) {
  auto t = std::make_unique<TestTarget>();
  Oracle::Config config;
  config.isolate = isolate;
  config.limits.timeout = absl::Seconds(30);
  absl::StatusOr<std::unique_ptr<Oracle>> oracle = Oracle::Create(config);
  if (!oracle.ok()) return oracle.status();
  t->oracle = *std::move(oracle);
  absl::StatusOr<compiler::Graph> graph = compiler::Parse(graph_text);
  if (!graph.ok()) return graph.status();
  t->target.graph = *std::move(graph);
  t->target.inputs = compiler::SeededInputs(t->target.graph, 0);
  absl::StatusOr<compiler::CompileOptions> options = compiler::CompileOptions::Parse(options_text);
  if (!options.ok()) return options.status();
  t->target.options = *std::move(options);
  absl::StatusOr<Verdict> verdict =
      t->oracle->Judge(t->target.graph, t->target.inputs, t->target.options);
  if (!verdict.ok()) return verdict.status();
  t->verdict = *std::move(verdict);
  t->target.signature = t->verdict.signature;
  return t;
}

}  // namespace rk::repro
