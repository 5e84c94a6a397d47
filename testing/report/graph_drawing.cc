#include "testing/report/graph_drawing.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"

namespace rk::report {

absl::StatusOr<std::string> DrawGraph(const compiler::Graph& graph,
                                      const compiler::DotStyle& style, int max_nodes) {
  if (graph.num_nodes() > max_nodes) {
    return absl::FailedPreconditionError(absl::StrCat(
        graph.num_nodes(), " nodes: too many to draw (the limit is ", max_nodes, ")"));
  }
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(tmpdir != nullptr && *tmpdir ? tmpdir : "/tmp",
                                  "/reprokit_report_XXXXXX");
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a temp file: ", strerror(errno)));
  ::close(fd);
  absl::Status rendered = compiler::RenderDotToSvg(compiler::PrintDot(graph, style), path);
  absl::StatusOr<std::string> svg =
      rendered.ok() ? ReadFileToString(path) : absl::StatusOr<std::string>(rendered);
  ::unlink(path.c_str());
  if (!svg.ok()) return svg.status();
  const size_t start = svg->find("<svg");
  if (start == std::string::npos) return absl::InternalError("dot wrote no <svg> element");
  return svg->substr(start);
}

std::vector<std::string> FusionGroupNodeNames(std::string_view d) {
  std::vector<std::string> names;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] != '%') continue;
    std::string name;
    size_t j = i + 1;
    for (; j < d.size() && d[j] != ' ' && d[j] != ','; ++j) name += d[j];
    if (!name.empty()) names.push_back(name);
    i = j;
  }
  return names;
}

std::vector<compiler::DotCluster> FusionClusters(const compiler::Graph& graph,
                                                 const std::vector<std::string>& descriptions) {
  std::map<std::string, int> by_name;
  for (int i = 0; i < graph.num_nodes(); ++i) by_name[graph.DisplayName(compiler::NodeId(i))] = i;
  std::vector<compiler::DotCluster> clusters;
  for (size_t g = 0; g < descriptions.size(); ++g) {
    compiler::DotCluster cluster;
    cluster.label = absl::StrCat("kernel ", g);
    for (const std::string& name : FusionGroupNodeNames(descriptions[g])) {
      if (auto it = by_name.find(name); it != by_name.end()) {
        cluster.nodes.push_back(compiler::NodeId(it->second));
      }
    }
    clusters.push_back(std::move(cluster));
  }
  return clusters;
}

}  // namespace rk::report
