#include "repro/backend/graph_json.h"

#include <cmath>
#include <type_traits>
#include <variant>

#include "compiler/ir/op.h"
#include "repro/backend/protocol.h"

namespace rk::repro {
namespace {

using compiler::AttrValue;

Json Dims(const std::vector<int64_t>& dims) {
  Json a = Json::MakeArray();
  for (int64_t d : dims) a.push_back(static_cast<long long>(d));
  return a;
}

Json AttrToJson(const AttrValue& value, std::string& payload) {
  Json j = Json::MakeObject();
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          j["int"] = static_cast<long long>(v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) {
            j["float"] = "nan";
          } else if (std::isinf(v)) {
            j["float"] = v > 0 ? "inf" : "-inf";
          } else {
            j["float"] = v;
          }
        } else if constexpr (std::is_same_v<T, bool>) {
          j["bool"] = v;
        } else if constexpr (std::is_same_v<T, std::string>) {
          j["string"] = v;
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          j["ints"] = Dims(v);
        } else if constexpr (std::is_same_v<T, compiler::DType>) {
          j["dtype"] = std::string(compiler::DTypeName(v));
        } else {
          j["tensor"] = AppendTensor(v, payload);
        }
      },
      value);
  return j;
}

}  // namespace

Json GraphToJson(const compiler::Graph& graph, std::string& payload) {
  Json j = Json::MakeObject();
  j["name"] = graph.name();
  Json inputs = Json::MakeArray();
  for (compiler::NodeId id : graph.inputs()) inputs.push_back(id.value);
  j["inputs"] = std::move(inputs);
  Json outputs = Json::MakeArray();
  for (compiler::NodeId id : graph.outputs()) outputs.push_back(id.value);
  j["outputs"] = std::move(outputs);
  Json nodes = Json::MakeArray();
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const compiler::NodeId id(i);
    const compiler::Node& node = graph.node(id);
    Json n = Json::MakeObject();
    n["id"] = i;
    n["name"] = graph.DisplayName(id);
    n["op"] = std::string(compiler::OpName(node.op));
    Json operands = Json::MakeArray();
    for (compiler::NodeId o : node.operands) operands.push_back(o.value);
    n["operands"] = std::move(operands);
    Json attrs = Json::MakeObject();
    for (const auto& [name, value] : node.attrs.values()) attrs[name] = AttrToJson(value, payload);
    n["attrs"] = std::move(attrs);
    n["dtype"] = std::string(compiler::DTypeName(node.type.dtype));
    n["shape"] = Dims(node.type.shape.dims());
    nodes.push_back(std::move(n));
  }
  j["nodes"] = std::move(nodes);
  return j;
}

}  // namespace rk::repro
