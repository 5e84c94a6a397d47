// The pass registry (from passes.def) and the pipeline runner.
#include "compiler/passes/pass_manager.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/algebraic_simplify.h"
#include "compiler/passes/canonicalize.h"
#include "compiler/passes/constant_fold.h"
#include "compiler/passes/conv_affine_fold.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/decompose.h"
#include "compiler/passes/layout_simplify.h"

namespace rk::compiler {
namespace {

absl::Status WriteDump(const std::string& dump_dir, const std::string& file_name,
                       const Graph& graph) {
  const std::filesystem::path dir = std::filesystem::path(dump_dir) / "passes";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create dump directory ", dir.string(), ": ", error.message()));
  }
  return WriteStringToFile((dir / file_name).string(), PrintInline(graph));
}

// Runs one pipeline pass with verification, timing and dumping around it.
absl::Status RunOnePass(int index, const PassInfo& pass, Graph& graph, PassContext& context) {
  const CompileOptions& options = context.options();
  PassTiming timing;
  timing.pass = pass.name;
  if (pass.optional && context.IsDisabled(pass.name)) {
    context.RecordTiming(std::move(timing));
    return absl::OkStatus();
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<bool> changed = pass.run(graph, context);
  timing.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  timing.ran = true;
  timing.changed = changed.ok() && *changed;
  context.RecordTiming(timing);
  if (!changed.ok()) return changed.status();
  if (options.checked) {
    if (absl::Status s = Verify(graph); !s.ok()) {
      return absl::InternalError(
          absl::StrCat("graph invalid after pass '", pass.name, "': ", s.message()));
    }
  }
  if (*changed && !options.dump_dir.empty()) {
    return WriteDump(options.dump_dir, absl::StrFormat("%02d_%s.rk", index + 1, pass.name),
                     graph);
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<PassInfo>& GraphPipeline() {
  static const std::vector<PassInfo>* const pipeline = new std::vector<PassInfo>{
#define GRAPH_PASS(stem, function, optional) {#stem, &function, optional},
#include "compiler/options/passes.def"
#undef GRAPH_PASS
  };
  return *pipeline;
}

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& pass : GraphPipeline()) {
    if (name == pass.name) return &pass;
  }
  return nullptr;
}

absl::StatusOr<Graph> RunGraphPipeline(const Graph& graph, PassContext& context) {
  Graph current = graph;
  const CompileOptions& options = context.options();
  if (options.checked) {
    if (absl::Status s = Verify(current); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("input graph: ", s.message()));
    }
  }
  if (!options.dump_dir.empty()) {
    if (absl::Status s = WriteDump(options.dump_dir, "00_input.rk", current); !s.ok()) return s;
  }
  const std::vector<PassInfo>& pipeline = GraphPipeline();
  for (int i = 0; i < static_cast<int>(pipeline.size()); ++i) {
    if (absl::Status s = RunOnePass(i, pipeline[i], current, context); !s.ok()) return s;
  }
  return current;
}

}  // namespace rk::compiler
