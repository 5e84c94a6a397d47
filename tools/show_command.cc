// `reprokit show GRAPH [--stats] [--dot] [--svg OUT] [--joint [--grad SPEC]]`:
// prints a graph file back in the text format, its statistics, or its
// Graphviz form; with --joint, of its joint graph (forward outputs and the
// gradients of the marked inputs, compiler/autodiff/joint_graph.h).
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/dot_printer.h"
#include "compiler/ir/graph_stats.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/autodiff/joint_graph.h"
#include "repro/oracle/gradients.h"
#include "tools/flags.h"
#include "tools/graph_source.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

using compiler::Graph;

int RunShow(absl::Span<const std::string> args) {
  bool stats = false, dot = false, joint = false;
  std::string svg, grad;
  FlagSet flags("show GRAPH|MODEL.onnx [--stats] [--dot] [--svg OUT] [--joint [--grad SPEC]]",
                "Parses a graph file (text format, docs/FORMAT.md) and prints it back in\n"
                "normal form, its statistics (node count per op, inputs and outputs with\n"
                "types, total elements, canonical hash) or its Graphviz form. With --joint,\n"
                "the same of its joint graph: the forward outputs, then the gradients of the\n"
                "inputs marked `grad` (upstream gradients as inputs seed.<i>), an ordinary\n"
                "graph that every command judges as it is.");
  flags.Bool("stats", &stats, "print statistics instead of the graph");
  flags.Bool("dot", &dot, "print Graphviz dot text instead of the graph");
  flags.String("svg", &svg, "render the graph to this SVG file with Graphviz's dot");
  flags.Bool("joint", &joint, "the joint graph (forward and backward) instead");
  flags.String("grad", &grad, "with --joint: input names (x,w) or all-float, instead of the "
                              "graph's grad marks");
  GraphSourceFlags source_flags;
  source_flags.Register(flags);
  auto positional = flags.Parse(args);
  if (!positional.ok()) return ReportError("show", positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError("show", absl::InvalidArgumentError("expects one GRAPH file"));
  }
  absl::StatusOr<GraphSource> source = LoadGraphSource((*positional)[0], source_flags);
  if (!source.ok()) return ReportError("show", source.status());
  if (flags.WasSet("grad") && !joint) {
    return ReportError("show", absl::InvalidArgumentError("--grad goes with --joint"));
  }
  if (joint) {
    absl::StatusOr<Graph> marked =
        flags.WasSet("grad") ? repro::ApplyGradFlag(source->graph, grad) : source->graph;
    if (!marked.ok()) return ReportError("show", marked.status());
    compiler::autodiff::GradSpec spec = compiler::autodiff::GradSpecFromMarks(*marked);
    if (spec.inputs.empty()) {
      return ReportError("show", absl::InvalidArgumentError(
                                     "--joint: no input is marked `grad` (mark some, or --grad)"));
    }
    absl::StatusOr<compiler::autodiff::JointGraph> built =
        compiler::autodiff::BuildJointGraph(*marked, spec);
    if (!built.ok()) return ReportError("show", built.status());
    source->graph = std::move(built->graph);
  }
  Graph* graph = &source->graph;
  if (stats) std::fputs(compiler::ComputeGraphStats(*graph).ToText().c_str(), stdout);
  if (dot) std::fputs(compiler::PrintDot(*graph).c_str(), stdout);
  if (!svg.empty()) {
    absl::Status s = compiler::RenderDotToSvg(compiler::PrintDot(*graph), svg);
    if (!s.ok()) {
      return ReportError("show", absl::Status(s.code(), absl::StrCat("--svg: ", s.message())));
    }
  }
  if (!stats && !dot && svg.empty()) std::fputs(compiler::PrintInline(*graph).c_str(), stdout);
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("show", "print a graph, its statistics or its Graphviz form", &RunShow);

}  // namespace rk::tools
