#include "compiler/ir/printer.h"

#include <limits>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/sha256.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/names.h"

namespace rk::compiler {
namespace {

class Printer {
 public:
  Printer(const Graph& graph, bool canonical, const PrintOptions& options)
      : graph_(graph), canonical_(canonical), options_(options) {}

  absl::StatusOr<std::string> Run() {
    std::string graph_name = canonical_ ? "g" : graph_.name();
    absl::StrAppend(&out_, "graph @",
                    IsPlainName(graph_name) ? graph_name : QuoteString(graph_name), "(");
    bool first = true;
    for (int i = 0; i < graph_.num_nodes(); ++i) {
      const Node& node = graph_.node(NodeId(i));
      if (node.op != Op::kInput) continue;
      absl::StrAppend(&out_, first ? "" : ", ", ValueName(NodeId(i)), ": ",
                      node.type.ToString(), IsMarkedForGrad(node) ? " grad" : "");
      first = false;
    }
    absl::StrAppend(&out_, ") {\n");
    for (int i = 0; i < graph_.num_nodes(); ++i) {
      if (graph_.node(NodeId(i)).op == Op::kInput) continue;
      if (absl::Status s = AppendNode(NodeId(i)); !s.ok()) return s;
    }
    std::vector<std::string> outputs;
    for (NodeId id : graph_.outputs()) outputs.push_back(ValueName(id));
    absl::StrAppend(&out_, "  return", outputs.empty() ? "" : " ", absl::StrJoin(outputs, ", "),
                    "\n}\n");
    return std::move(out_);
  }

 private:
  std::string ValueName(NodeId id) const {
    if (canonical_ || id.value < 0 || id.value >= graph_.num_nodes()) {
      return absl::StrCat("%", id.value);
    }
    return absl::StrCat("%", graph_.DisplayName(id));
  }

  absl::Status AppendNode(NodeId id) {
    const Node& node = graph_.node(id);
    std::vector<std::string> operands;
    for (NodeId operand : node.operands) operands.push_back(ValueName(operand));
    absl::StrAppend(&out_, "  ", ValueName(id), " = ", std::string(OpName(node.op)), "(",
                    absl::StrJoin(operands, ", "), ")");
    if (!node.attrs.empty()) {
      absl::StrAppend(&out_, " {");
      bool first = true;
      for (const auto& [name, value] : node.attrs.values()) {
        absl::StrAppend(&out_, first ? "" : ", ", name, "=");
        first = false;
        if (absl::Status s = AppendValue(id, value); !s.ok()) return s;
      }
      absl::StrAppend(&out_, "}");
    }
    absl::StrAppend(&out_, " : ", node.type.ToString(), "\n");
    return absl::OkStatus();
  }

  absl::Status AppendValue(NodeId id, const AttrValue& value) {
    return std::visit(
        [&](const auto& v) -> absl::Status {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            absl::StrAppend(&out_, v);
          } else if constexpr (std::is_same_v<T, double>) {
            absl::StrAppend(&out_, FormatDouble(v));
          } else if constexpr (std::is_same_v<T, bool>) {
            absl::StrAppend(&out_, v ? "true" : "false");
          } else if constexpr (std::is_same_v<T, std::string>) {
            absl::StrAppend(&out_, QuoteString(v));
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            absl::StrAppend(&out_, "[", absl::StrJoin(v, ","), "]");
          } else if constexpr (std::is_same_v<T, DType>) {
            absl::StrAppend(&out_, std::string(DTypeName(v)));
          } else {
            return AppendTensor(id, v);
          }
          return absl::OkStatus();
        },
        value);
  }

  absl::Status AppendTensor(NodeId id, const HostTensor& tensor) {
    absl::StrAppend(&out_, "dense<", tensor.type().ToString(), ">");
    if (canonical_ && tensor.num_elements() > kCanonicalInlineLimit) {
      // The digest of the bytes identifies a large constant exactly, at a
      // fraction of the cost of its text (a model's weights are gigabytes).
      absl::StrAppend(&out_, "sha256:",
                      Sha256Hex(std::string_view(reinterpret_cast<const char*>(tensor.bytes().data()),
                                                 tensor.bytes().size())));
      return absl::OkStatus();
    }
    if (!canonical_ && tensor.num_elements() > options_.inline_limit) {
      if (options_.sink == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            "constant ", ValueName(id), " has ", tensor.num_elements(),
            " elements, more than the inline limit of ", options_.inline_limit,
            ", and no BlobSink was given"));
      }
      absl::StatusOr<std::string> digest = options_.sink->Put(tensor);
      if (!digest.ok()) return digest.status();
      absl::StrAppend(&out_, "sha256:", *digest);
      return absl::OkStatus();
    }
    absl::StrAppend(&out_, "[");
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      absl::StrAppend(&out_, i == 0 ? "" : ", ", FormatElement(tensor, i));
    }
    absl::StrAppend(&out_, "]");
    return absl::OkStatus();
  }

  const Graph& graph_;
  bool canonical_;
  PrintOptions options_;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> Print(const Graph& graph, const PrintOptions& options) {
  return Printer(graph, /*canonical=*/false, options).Run();
}

std::string PrintInline(const Graph& graph) {
  PrintOptions options;
  options.inline_limit = std::numeric_limits<int64_t>::max();
  absl::StatusOr<std::string> text = Printer(graph, /*canonical=*/false, options).Run();
  return text.ok() ? *std::move(text) : std::string(text.status().message());
}

std::string PrintCanonical(const Graph& graph) {
  absl::StatusOr<std::string> text = Printer(graph, /*canonical=*/true, PrintOptions()).Run();
  return text.ok() ? *std::move(text) : std::string(text.status().message());
}

}  // namespace rk::compiler
