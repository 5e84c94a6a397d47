#include "compiler/onnx/model_nodes.h"

#include <map>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace rk::compiler::onnx_io {
namespace {

constexpr int kMaxCallDepth = 64;
// Fields newer than Debian's ONNX 1.12 classes (IR 9 and 10), kept by
// protobuf as unknown fields.
constexpr int kNodeOverloadField = 8;
constexpr int kFunctionAttributeProtoField = 11;
constexpr int kFunctionOverloadField = 13;

// The length-delimited values of top-level field `number` in `m`'s wire
// form, unknown fields included. Read from the serialized bytes, not through
// reflection, which static builds' lite runtime does not have.
std::vector<std::string> LengthDelimitedFields(const google::protobuf::MessageLite& m, int number) {
  using google::protobuf::internal::WireFormatLite;
  const std::string bytes = m.SerializeAsString();
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::vector<std::string> out;
  while (const uint32_t tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == number &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      std::string value;
      if (!in.ReadVarint32(&length) || !in.ReadString(&value, static_cast<int>(length))) break;
      out.push_back(std::move(value));
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  return out;
}

std::string UnknownString(const google::protobuf::MessageLite& m, int field) {
  std::vector<std::string> values = LengthDelimitedFields(m, field);
  return values.empty() ? "" : values.back();
}

std::string Domain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

std::string FunctionKey(const std::string& domain, const std::string& name,
                        const std::string& overload) {
  return absl::StrCat(Domain(domain), "\n", name, "\n", overload);
}

int64_t DefaultOpsetOf(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& ids) {
  for (const onnx::OperatorSetIdProto& o : ids) {
    if (Domain(o.domain()).empty()) return o.version();
  }
  return -1;
}

class Inliner {
 public:
  explicit Inliner(const onnx::ModelProto& model) : model_(model) {}

  absl::Status Run(ModelNodes& out) {
    for (const onnx::FunctionProto& f : model_.functions()) {
      const std::string overload = UnknownString(f, kFunctionOverloadField);
      overloads_ = overloads_ || !overload.empty();
      functions_[FunctionKey(f.domain(), f.name(), overload)] = &f;
    }
    out_ = &out;
    for (const onnx::NodeProto& n : model_.graph().node()) {
      RK_RETURN_IF_ERROR(Expand(n, /*owned=*/false, 0));
    }
    return absl::OkStatus();
  }

 private:
  const onnx::FunctionProto* FunctionOf(const onnx::NodeProto& n) const {
    if (functions_.empty()) return nullptr;
    // A node's overload is read only when some function has one (it costs
    // serializing the node).
    auto it = functions_.find(FunctionKey(
        n.domain(), n.op_type(), overloads_ ? UnknownString(n, kNodeOverloadField) : ""));
    return it == functions_.end() ? nullptr : it->second;
  }

  absl::Status Expand(const onnx::NodeProto& n, bool owned, int depth) {
    const onnx::FunctionProto* f = FunctionOf(n);
    if (f == nullptr) {
      out_->nodes.push_back(owned ? &out_->inlined.emplace_back(n) : &n);
      return absl::OkStatus();
    }
    if (depth >= kMaxCallDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local function '", f->name(), "': calls nested deeper than ", kMaxCallDepth,
          " (a function that calls itself?)"));
    }
    const int64_t body_opset = DefaultOpsetOf(f->opset_import());
    const int64_t model_opset = DefaultOpsetOf(model_.opset_import());
    if (body_opset >= 0 && body_opset != model_opset) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local function '", f->name(), "' imports ai.onnx opset ", body_opset,
          ", the model opset ", model_opset, ": functions at another opset are not supported"));
    }
    ++out_->functions_inlined;
    const std::string caller = n.name().empty() ? (n.output_size() > 0 ? n.output(0) : f->name())
                                                : n.name();
    const std::string prefix = absl::StrCat(caller, "/", ++calls_, "/");
    std::map<std::string, std::string> formal;
    for (int i = 0; i < f->input_size(); ++i) {
      formal[f->input(i)] = i < n.input_size() ? n.input(i) : "";
    }
    for (int i = 0; i < f->output_size(); ++i) {
      const bool bound = i < n.output_size() && !n.output(i).empty();
      formal[f->output(i)] = bound ? n.output(i) : prefix + f->output(i);
    }
    std::map<std::string, const onnx::AttributeProto*> given;
    for (const onnx::AttributeProto& a : n.attribute()) given[a.name()] = &a;
    std::map<std::string, onnx::AttributeProto> defaults;
    for (const std::string& bytes : LengthDelimitedFields(*f, kFunctionAttributeProtoField)) {
      onnx::AttributeProto a;
      if (!a.ParseFromString(bytes)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "local function '", f->name(), "': an attribute default does not parse"));
      }
      defaults[a.name()] = std::move(a);
    }
    auto rename = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      auto it = formal.find(name);
      return it != formal.end() ? it->second : prefix + name;
    };
    for (const onnx::NodeProto& body : f->node()) {
      onnx::NodeProto copy = body;
      RK_RETURN_IF_ERROR(Rewrite(copy, rename, given, defaults, *f));
      copy.set_name(prefix + (body.name().empty() ? body.op_type() : body.name()));
      RK_RETURN_IF_ERROR(Expand(copy, /*owned=*/true, depth + 1));
    }
    return absl::OkStatus();
  }

  template <typename Rename>
  absl::Status Rewrite(onnx::NodeProto& node, const Rename& rename,
                       const std::map<std::string, const onnx::AttributeProto*>& given,
                       const std::map<std::string, onnx::AttributeProto>& defaults,
                       const onnx::FunctionProto& f) {
    for (std::string& in : *node.mutable_input()) in = rename(in);
    for (std::string& out : *node.mutable_output()) out = rename(out);
    auto* attrs = node.mutable_attribute();
    for (int i = 0; i < attrs->size();) {
      onnx::AttributeProto& a = *attrs->Mutable(i);
      if (!a.ref_attr_name().empty()) {
        const onnx::AttributeProto* value = nullptr;
        if (auto g = given.find(a.ref_attr_name()); g != given.end()) value = g->second;
        if (value == nullptr) {
          if (auto d = defaults.find(a.ref_attr_name()); d != defaults.end()) value = &d->second;
        }
        if (value == nullptr) {  // neither given nor defaulted: the attribute is absent
          attrs->DeleteSubrange(i, 1);
          continue;
        }
        const std::string name = a.name();
        a = *value;
        a.set_name(name);
        a.clear_ref_attr_name();
      }
      if (a.has_g()) RK_RETURN_IF_ERROR(RewriteGraph(*a.mutable_g(), rename, given, defaults, f));
      for (onnx::GraphProto& g : *a.mutable_graphs()) {
        RK_RETURN_IF_ERROR(RewriteGraph(g, rename, given, defaults, f));
      }
      ++i;
    }
    return absl::OkStatus();
  }

  template <typename Rename>
  absl::Status RewriteGraph(onnx::GraphProto& g, const Rename& rename,
                            const std::map<std::string, const onnx::AttributeProto*>& given,
                            const std::map<std::string, onnx::AttributeProto>& defaults,
                            const onnx::FunctionProto& f) {
    for (onnx::ValueInfoProto& v : *g.mutable_input()) v.set_name(rename(v.name()));
    for (onnx::ValueInfoProto& v : *g.mutable_output()) v.set_name(rename(v.name()));
    for (onnx::TensorProto& t : *g.mutable_initializer()) t.set_name(rename(t.name()));
    for (onnx::NodeProto& n : *g.mutable_node()) {
      RK_RETURN_IF_ERROR(Rewrite(n, rename, given, defaults, f));
    }
    return absl::OkStatus();
  }

  const onnx::ModelProto& model_;
  absl::flat_hash_map<std::string, const onnx::FunctionProto*> functions_;
  bool overloads_ = false;
  ModelNodes* out_ = nullptr;
  int calls_ = 0;
};

// Every value a node reads, its subgraphs' outer-scope reads included (an
// over-approximation: names a subgraph defines itself have no producer
// outside it).
void CollectReads(const onnx::NodeProto& n, std::vector<const std::string*>& reads) {
  for (const std::string& in : n.input()) {
    if (!in.empty()) reads.push_back(&in);
  }
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.has_g()) {
      for (const onnx::NodeProto& inner : a.g().node()) CollectReads(inner, reads);
    }
    for (const onnx::GraphProto& g : a.graphs()) {
      for (const onnx::NodeProto& inner : g.node()) CollectReads(inner, reads);
    }
  }
}

// The nodes in an order where producers come first, keeping the given order
// where it already is one. Unknown values (inputs, initializers, undefined
// names) and cycles are left to the importer, which names them.
std::vector<const onnx::NodeProto*> Sorted(const std::vector<const onnx::NodeProto*>& nodes) {
  absl::flat_hash_map<std::string, int> producer;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    for (const std::string& out : nodes[i]->output()) {
      if (!out.empty()) producer.emplace(out, i);
    }
  }
  std::vector<std::vector<int>> deps(nodes.size());
  bool sorted = true;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    std::vector<const std::string*> reads;
    CollectReads(*nodes[i], reads);
    for (const std::string* r : reads) {
      auto it = producer.find(*r);
      if (it == producer.end() || it->second == i) continue;
      deps[i].push_back(it->second);
      if (it->second > i) sorted = false;
    }
  }
  if (sorted) return nodes;
  // Depth-first, iteratively: a node after all its producers.
  enum : char { kNew, kOpen, kDone };
  std::vector<char> state(nodes.size(), kNew);
  std::vector<const onnx::NodeProto*> out;
  for (int root = 0; root < static_cast<int>(nodes.size()); ++root) {
    if (state[root] != kNew) continue;
    std::vector<std::pair<int, size_t>> stack = {{root, 0}};
    state[root] = kOpen;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < deps[node].size()) {
        const int d = deps[node][next++];
        if (state[d] == kNew) {
          state[d] = kOpen;
          stack.push_back({d, 0});
        }
        continue;  // kOpen: a cycle, broken here; kDone: already placed
      }
      state[node] = kDone;
      out.push_back(nodes[node]);
      stack.pop_back();
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<ModelNodes> ModelNodesToConvert(const onnx::ModelProto& model) {
  ModelNodes result;
  Inliner inliner(model);
  RK_RETURN_IF_ERROR(inliner.Run(result));
  result.nodes = Sorted(result.nodes);
  return result;
}

}  // namespace rk::compiler::onnx_io
