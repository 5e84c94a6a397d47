#include "compiler/onnx/model_structure.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace rk::compiler::onnx_io {
namespace {

absl::Status Malformed(const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("malformed model: ", why));
}

std::string NodeText(const onnx::NodeProto& n) {
  return absl::StrCat(n.op_type(), " node '", n.name().empty() ? (n.output_size() > 0 ? n.output(0) : "") : n.name(),
                      "'");
}

absl::Status CheckAttributes(const onnx::NodeProto& n, bool in_function) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name().empty()) return Malformed(absl::StrCat(NodeText(n), " has an attribute without a name"));
    if (!a.ref_attr_name().empty()) {
      if (!in_function) {
        return Malformed(absl::StrCat(NodeText(n), ": attribute '", a.name(),
                                      "' refers to a function attribute outside a function"));
      }
      continue;
    }
    if (a.type() == onnx::AttributeProto::UNDEFINED) {
      return Malformed(absl::StrCat(NodeText(n), ": attribute '", a.name(), "' has no type"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckValueType(const onnx::ValueInfoProto& v, const char* what) {
  if (v.name().empty()) return Malformed(absl::StrCat("a graph ", what, " without a name"));
  if (!v.has_type()) return Malformed(absl::StrCat("graph ", what, " '", v.name(), "' has no type"));
  if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() == 0) {
    return Malformed(absl::StrCat("graph ", what, " '", v.name(), "' has no element type"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckModelStructure(const onnx::ModelProto& model) {
  absl::flat_hash_set<std::string> domains, functions;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    domains.insert(o.domain() == "ai.onnx" ? "" : o.domain());
  }
  for (const onnx::FunctionProto& f : model.functions()) {
    functions.insert(absl::StrCat(f.domain(), "::", f.name()));
    domains.insert(f.domain() == "ai.onnx" ? "" : f.domain());
  }
  const onnx::GraphProto& g = model.graph();
  absl::flat_hash_set<std::string> defined;
  auto define = [&](const std::string& name, const std::string& by) -> absl::Status {
    if (name.empty()) return Malformed(absl::StrCat(by, " defines a value without a name"));
    if (!defined.insert(name).second) {
      return Malformed(absl::StrCat("value '", name, "' is defined twice (", by, ")"));
    }
    return absl::OkStatus();
  };
  for (const onnx::TensorProto& t : g.initializer()) {
    if (absl::Status s = define(t.name(), "an initializer"); !s.ok()) return s;
  }
  for (const onnx::ValueInfoProto& v : g.input()) {
    // An initializer may also be listed as an input (IR < 4 requires it);
    // its type is the initializer's.
    if (defined.contains(v.name())) continue;
    if (absl::Status s = CheckValueType(v, "input"); !s.ok()) return s;
    if (absl::Status s = define(v.name(), "a graph input"); !s.ok()) return s;
  }
  for (const onnx::NodeProto& n : g.node()) {
    if (n.op_type().empty()) return Malformed("a node without an op type");
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    if (!domains.contains(domain)) {
      return Malformed(absl::StrCat(NodeText(n), ": its domain '", n.domain(),
                                    "' has no opset_import"));
    }
    if (absl::Status s = CheckAttributes(n, /*in_function=*/false); !s.ok()) return s;
    for (const std::string& out : n.output()) {
      if (out.empty()) continue;  // an omitted optional output
      if (absl::Status s = define(out, NodeText(n)); !s.ok()) return s;
    }
  }
  for (const onnx::NodeProto& n : g.node()) {
    for (const std::string& in : n.input()) {
      if (!in.empty() && !defined.contains(in)) {
        return Malformed(absl::StrCat(NodeText(n), ": input '", in,
                                      "' is no graph input, initializer or node output"));
      }
    }
  }
  if (g.output_size() == 0) return Malformed("the graph has no outputs");
  for (const onnx::ValueInfoProto& v : g.output()) {
    if (absl::Status s = CheckValueType(v, "output"); !s.ok()) return s;
    if (!defined.contains(v.name())) {
      return Malformed(absl::StrCat("graph output '", v.name(), "' is never defined"));
    }
  }
  for (const onnx::FunctionProto& f : model.functions()) {
    for (const onnx::NodeProto& n : f.node()) {
      if (n.op_type().empty()) {
        return Malformed(absl::StrCat("function '", f.name(), "' has a node without an op type"));
      }
      if (absl::Status s = CheckAttributes(n, /*in_function=*/true); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
