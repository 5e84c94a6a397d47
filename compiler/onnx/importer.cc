#include "compiler/onnx/importer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/names.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/fuse_gelu.h"
#include "compiler/onnx/import_context.h"
#include "compiler/onnx/model_file.h"
#include "compiler/onnx/model_nodes.h"
#include "compiler/onnx/onnx_tensor.h"
#include "compiler/reference/interpreter.h"

namespace rk::compiler::onnx_io {
namespace {

// Folding stops here: larger integer results stay graph nodes.
constexpr int64_t kMaxFoldElements = int64_t{1} << 22;

// The text format's and the store's limit on a type (compiler/ir/parser.cc),
// so every graph the importer builds survives printing and export: no dim
// and no element count over 2^40 (a zero-element type included).
constexpr int64_t kMaxTypeElements = int64_t{1} << 40;

absl::Status CheckTypeSize(const TensorType& t) {
  int64_t elements = 1;
  for (int64_t d : t.shape.dims()) {
    if (d > kMaxTypeElements || (d > 0 && elements > kMaxTypeElements / d)) {
      return absl::InvalidArgumentError(
          absl::StrCat(t.ToString(), " has a dim or an element count over 2^40"));
    }
    elements *= d;
  }
  return absl::OkStatus();
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

class Importer : public NodeContext {
 public:
  Importer(const onnx::ModelProto& model, const ImportOptions& options, int64_t opset,
           const std::vector<const onnx::NodeProto*>& nodes)
      : model_(model), options_(options), opset_(opset), nodes_(nodes),
        builder_(GraphName(model)) {}

  absl::StatusOr<ImportedModel> Run();

  // NodeContext.
  const onnx::NodeProto& node() const override { return *node_; }
  int64_t opset() const override { return opset_; }
  const std::string& model_dir() const override { return options_.model_dir; }
  absl::StatusOr<NodeId> Input(int i) override;
  absl::StatusOr<HostTensor> ConstantInput(int i) override;
  absl::StatusOr<NodeId> Emit(Op op, absl::Span<const NodeId> operands, Attributes attrs) override;
  absl::StatusOr<NodeId> EmitConstant(HostTensor value) override;
  const TensorType& type(NodeId id) const override { return builder_.type(id); }
  std::optional<HostTensor> ValueOf(NodeId id) const override;
  absl::StatusOr<std::vector<NodeId>> InlineSubgraph(const onnx::GraphProto& graph) override;
  void SetOutput(int i, NodeId id) override {
    if (i < static_cast<int>(outputs_.size())) outputs_[i] = id;
  }

 private:
  static std::string GraphName(const onnx::ModelProto& model) {
    std::string name = SanitizeName(model.graph().name());
    return name.empty() ? "model" : name;
  }
  absl::Status CheckSupported() const;
  absl::Status AddInputs();
  absl::StatusOr<NodeId> Value(const std::string& name);
  absl::Status ConvertNode(const onnx::NodeProto& node);
  std::string UniqueName(const std::string& base);
  absl::StatusOr<Graph> LiveGraph(const std::vector<NodeId>& outputs);
  absl::Status CheckDeclaredOutputs(const Graph& graph) const;
  // The type `value_info` declares for `name`, where it is static and a
  // dtype reprokit has.
  std::optional<TensorType> DeclaredType(const std::string& name) const;

  const onnx::ModelProto& model_;
  const ImportOptions& options_;
  const int64_t opset_;
  const std::vector<const onnx::NodeProto*>& nodes_;
  GraphBuilder builder_;
  absl::flat_hash_map<std::string, NodeId> values_;
  absl::flat_hash_map<std::string, const onnx::TensorProto*> initializers_;
  absl::flat_hash_map<std::string, const onnx::ValueInfoProto*> value_info_;
  std::vector<std::string> names_;  // per builder node
  absl::flat_hash_set<std::string> taken_;
  std::vector<NodeOrigin> origins_;
  int64_t initializer_bytes_ = 0;
  // The node being converted and what it produced.
  const onnx::NodeProto* node_ = nullptr;
  std::vector<NodeId> outputs_;
};

absl::Status Importer::CheckSupported() const {
  struct Use {
    int count = 0;
    std::string first;
  };
  // Op type -> why not, with its uses.
  std::map<std::string, Use> unsupported;
  std::map<std::string, std::string> why;
  auto opset_of = [&](const std::string& domain) -> int64_t {
    for (const onnx::OperatorSetIdProto& o : model_.opset_import()) {
      if (o.domain() == domain) return o.version();
    }
    return 0;
  };
  for (const onnx::NodeProto* node : nodes_) {
    const onnx::NodeProto& n = *node;
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const OpConverter* converter = default_domain ? FindConverter(n.op_type()) : nullptr;
    if (converter != nullptr && opset_ >= converter->first_opset &&
        opset_ <= converter->last_opset) {
      continue;
    }
    const std::string key =
        default_domain ? n.op_type() : absl::StrCat(n.domain(), "::", n.op_type());
    Use& use = unsupported[key];
    if (use.count++ == 0) use.first = n.name().empty() ? n.output(0) : n.name();
    if (converter == nullptr) {
      why[key] = absl::StrCat("(opset ", default_domain ? opset_ : opset_of(n.domain()), ")");
    } else if (opset_ > converter->last_opset) {
      why[key] = absl::StrCat("(opset ", opset_, "): this build knows ", n.op_type(),
                              " up to opset ", converter->last_opset);
    } else {
      why[key] = absl::StrCat("(opset ", opset_, "): ai.onnx has ", n.op_type(), " from opset ",
                              converter->first_opset);
    }
  }
  if (unsupported.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  for (const auto& [op, use] : unsupported) {
    lines.push_back(absl::StrCat("  ", op, " ", why[op], ": ", use.count, " node",
                                 use.count == 1 ? "" : "s", ", first '", use.first, "'"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the model uses ", unsupported.size(), " unsupported op type",
                   unsupported.size() == 1 ? "" : "s", ":\n", absl::StrJoin(lines, "\n")));
}

std::optional<TensorType> Importer::DeclaredType(const std::string& name) const {
  auto it = value_info_.find(name);
  if (it == value_info_.end() || !it->second->type().has_tensor_type()) return std::nullopt;
  const onnx::TypeProto::Tensor& t = it->second->type().tensor_type();
  if (t.elem_type() == 0 || !t.has_shape()) return std::nullopt;
  absl::StatusOr<DType> dtype = DTypeFromOnnx(t.elem_type());
  if (!dtype.ok()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return TensorType(*dtype, Shape(dims));
}

absl::Status Importer::AddInputs() {
  for (const onnx::TensorProto& init : model_.graph().initializer()) {
    initializers_[init.name()] = &init;
  }
  for (const onnx::ValueInfoProto& v : model_.graph().value_info()) value_info_[v.name()] = &v;
  absl::flat_hash_set<std::string> declared;
  for (const onnx::ValueInfoProto& input : model_.graph().input()) {
    if (!initializers_.contains(input.name())) declared.insert(input.name());
  }
  for (const auto& [name, shape] : options_.input_shapes) {
    if (!declared.contains(name)) {
      std::vector<std::string> known;
      for (const onnx::ValueInfoProto& input : model_.graph().input()) {
        if (!initializers_.contains(input.name())) known.push_back(input.name());
      }
      return absl::InvalidArgumentError(absl::StrCat("--input-shape names '", name,
                                                     "', which is not an input of the model (",
                                                     absl::StrJoin(known, ", "), ")"));
    }
  }
  for (const onnx::ValueInfoProto& input : model_.graph().input()) {
    if (initializers_.contains(input.name())) continue;  // a weight listed as input (IR < 4)
    if (!input.type().has_tensor_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name(), "' is not a tensor (sequences and maps are not supported)"));
    }
    const onnx::TypeProto::Tensor& t = input.type().tensor_type();
    absl::StatusOr<DType> dtype = DTypeFromOnnx(t.elem_type());
    if (!dtype.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", input.name(), "': ", dtype.status().message()));
    }
    std::vector<int64_t> dims;
    auto bound = options_.input_shapes.find(input.name());
    if (bound != options_.input_shapes.end()) {
      dims = bound->second;
      if (t.has_shape() && t.shape().dim_size() != static_cast<int>(dims.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input-shape ", input.name(), "=", DimsText(dims), ": the model's input has rank ",
            t.shape().dim_size()));
      }
      for (int k = 0; t.has_shape() && k < t.shape().dim_size(); ++k) {
        const onnx::TensorShapeProto::Dimension& d = t.shape().dim(k);
        if (d.has_dim_value() && d.dim_value() != dims[k]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--input-shape ", input.name(), "=", DimsText(dims), ": dim ", k,
              " is fixed at ", d.dim_value(), " in the model"));
        }
      }
    } else {
      if (!t.has_shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", input.name(), "' has no shape in the model; give it with --input-shape ",
            input.name(), "=[d0,d1,...]"));
      }
      for (int k = 0; k < t.shape().dim_size(); ++k) {
        const onnx::TensorShapeProto::Dimension& d = t.shape().dim(k);
        if (!d.has_dim_value() || d.dim_value() < 0) {
          const std::string symbol = d.has_dim_param() ? absl::StrCat(" ('", d.dim_param(), "')") : "";
          return absl::InvalidArgumentError(absl::StrCat(
              "input '", input.name(), "' dim ", k, symbol,
              " is symbolic; bind it with --input-shape ", input.name(), "=[d0,d1,...]"));
        }
        dims.push_back(d.dim_value());
      }
    }
    for (int64_t d : dims) {
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("input '", input.name(), "': negative dim in ", DimsText(dims)));
      }
    }
    const TensorType type(*dtype, Shape(dims));
    if (absl::Status s = CheckTypeSize(type); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", input.name(), "': ", s.message()));
    }
    const std::string name = UniqueName(SanitizeName(input.name()));
    NodeId id = builder_.Input(name, type);
    names_.push_back(name);
    values_[input.name()] = id;
  }
  return absl::OkStatus();
}

absl::StatusOr<NodeId> Importer::Value(const std::string& name) {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  auto init = initializers_.find(name);
  if (init == initializers_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("value '", name, "' is used but never defined (no input, initializer or node output)"));
  }
  absl::StatusOr<HostTensor> value = TensorFromProto(*init->second, options_.model_dir);
  if (!value.ok()) return value.status();
  initializer_bytes_ += value->byte_size();
  RK_ASSIGN_OR_RETURN(NodeId id, builder_.Constant(*std::move(value)));
  names_.push_back(UniqueName(SanitizeName(name)));
  values_[name] = id;
  return id;
}

absl::StatusOr<NodeId> Importer::Input(int i) {
  if (!HasInput(i)) return Error(absl::StrCat("input ", i, " is required"));
  return Value(node_->input(i));
}

std::optional<HostTensor> Importer::ValueOf(NodeId id) const {
  const Node& n = builder_.graph().node(id);
  if (n.op != Op::kConstant) return std::nullopt;
  absl::StatusOr<HostTensor> t = n.attrs.GetTensor("value");
  if (!t.ok()) return std::nullopt;
  return *t;
}

absl::StatusOr<HostTensor> Importer::ConstantInput(int i) {
  RK_ASSIGN_OR_RETURN(NodeId id, Input(i));
  std::optional<HostTensor> value = ValueOf(id);
  if (!value.has_value()) {
    return Error(absl::StrCat("input ", i, " ('", node_->input(i),
                              "') must be a constant (an initializer, or computed from constants "
                              "only): dynamic values are not supported"));
  }
  return *value;
}

absl::StatusOr<NodeId> Importer::EmitConstant(HostTensor value) {
  RK_ASSIGN_OR_RETURN(NodeId id, builder_.Constant(std::move(value)));
  names_.emplace_back();
  return id;
}

absl::StatusOr<NodeId> Importer::Emit(Op op, absl::Span<const NodeId> operands, Attributes attrs) {
  absl::StatusOr<NodeId> id = builder_.Add(op, operands, attrs);
  if (!id.ok()) return Error(std::string(id.status().message()));
  names_.emplace_back();
  const TensorType& t = builder_.type(*id);
  if (absl::Status s = CheckTypeSize(t); !s.ok()) return Error(std::string(s.message()));
  if (op == Op::kConstant || IsFloat(t.dtype) || t.num_elements() > kMaxFoldElements) return id;
  // Integer or bool result: fold it when every operand is a constant.
  GraphBuilder fold("fold");
  std::vector<NodeId> args;
  for (NodeId operand : operands) {
    std::optional<HostTensor> v = ValueOf(operand);
    if (!v.has_value()) return id;
    RK_ASSIGN_OR_RETURN(NodeId c, fold.Constant(*v));
    args.push_back(c);
  }
  RK_ASSIGN_OR_RETURN(NodeId r, fold.Add(op, args, std::move(attrs)));
  RK_RETURN_IF_ERROR(fold.Output(r));
  RK_ASSIGN_OR_RETURN(Graph g, fold.Build());
  RK_ASSIGN_OR_RETURN(EvalResult result, Evaluate(g, {}));
  return EmitConstant(result.outputs[0]);
}

std::string Importer::UniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 2; taken_.contains(name); ++k) name = absl::StrCat(base, "_", k);
  taken_.insert(name);
  return name;
}

absl::StatusOr<std::vector<NodeId>> Importer::InlineSubgraph(const onnx::GraphProto& graph) {
  const onnx::NodeProto* outer = node_;
  const std::vector<NodeId> outer_outputs = outputs_;
  for (const onnx::TensorProto& t : graph.initializer()) initializers_[t.name()] = &t;
  absl::Status status;
  for (const onnx::NodeProto& n : graph.node()) {
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const OpConverter* converter = default_domain ? FindConverter(n.op_type()) : nullptr;
    if (converter == nullptr || opset_ < converter->first_opset ||
        opset_ > converter->last_opset) {
      node_ = outer;  // the error names the node that holds the subgraph
      status = Error(absl::StrCat("subgraph '", graph.name(), "' has node '", n.name(), "' of op ",
                                  n.op_type(), " (opset ", opset_,
                                  "), which this build does not convert"));
      break;
    }
    status = ConvertNode(n);
    if (!status.ok()) break;
  }
  node_ = outer;
  outputs_ = outer_outputs;
  RK_RETURN_IF_ERROR(status);
  std::vector<NodeId> results;
  for (const onnx::ValueInfoProto& o : graph.output()) {
    RK_ASSIGN_OR_RETURN(NodeId id, Value(o.name()));
    results.push_back(id);
  }
  return results;
}

absl::Status Importer::ConvertNode(const onnx::NodeProto& n) {
  node_ = &n;
  outputs_.assign(n.output_size(), NodeId());
  const int first_new = builder_.num_nodes();
  RK_RETURN_IF_ERROR(FindConverter(n.op_type())->convert(*this));
  const std::string base =
      SanitizeName(n.name().empty() ? (n.output_size() > 0 ? n.output(0) : n.op_type()) : n.name());
  // Results first (they get the node's own name), then the helpers.
  std::vector<std::string> assigned;
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    if (!outputs_[i].valid()) {
      return Error(absl::StrCat("output ", i, " ('", n.output(i), "') is not supported"));
    }
    values_[n.output(i)] = outputs_[i];
    // What the exporter's shape inference wrote for the value (PyTorch's
    // exporter writes value_info for nearly every value): a static type that
    // differs is a conversion that went wrong, reported at its node.
    if (std::optional<TensorType> declared = DeclaredType(n.output(i));
        declared.has_value() && *declared != builder_.type(outputs_[i])) {
      return Error(absl::StrCat("output ", i, " ('", n.output(i), "') is declared ",
                                declared->ToString(), " (value_info), the conversion made ",
                                builder_.type(outputs_[i]).ToString()));
    }
    std::string& name = names_[outputs_[i].value];
    if (outputs_[i].value >= first_new && name.empty()) {
      name = UniqueName(n.output_size() == 1 || i == 0 ? base : absl::StrCat(base, "_", i));
      assigned.push_back(name);
    }
  }
  int helper = 0;
  for (int id = first_new; id < builder_.num_nodes(); ++id) {
    if (!names_[id].empty()) continue;
    names_[id] = UniqueName(absl::StrCat(base, ".", ++helper));
    assigned.push_back(names_[id]);
  }
  for (const std::string& name : assigned) origins_.push_back({name, n.name(), n.op_type()});
  return absl::OkStatus();
}

// A copy of the builder's graph with only what the outputs need (and every
// input), names applied. Sources (constants, full) are placed right before
// their first user, wherever the model defined them, so that exporting and
// importing again reproduces the same node order.
absl::StatusOr<Graph> Importer::LiveGraph(const std::vector<NodeId>& outputs) {
  const Graph& g = builder_.graph();
  std::vector<bool> live(g.num_nodes(), false);
  for (NodeId o : outputs) live[o.value] = true;
  for (int i = g.num_nodes() - 1; i >= 0; --i) {
    if (!live[i]) continue;
    for (NodeId operand : g.node(NodeId(i)).operands) live[operand.value] = true;
  }
  Graph out(g.name());
  std::vector<NodeId> map(g.num_nodes());
  auto copy = [&](int i) {
    if (map[i].valid()) return;
    Node n = g.node(NodeId(i));
    n.name = names_[i];
    for (NodeId& operand : n.operands) operand = map[operand.value];
    map[i] = out.AppendNode(std::move(n));
  };
  auto is_source = [&](int i) {
    return g.node(NodeId(i)).op != Op::kInput && g.node(NodeId(i)).operands.empty();
  };
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(NodeId(i)).op == Op::kInput) copy(i);
  }
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (!live[i] || g.node(NodeId(i)).op == Op::kInput || is_source(i)) continue;
    for (NodeId operand : g.node(NodeId(i)).operands) copy(operand.value);
    copy(i);
  }
  for (NodeId o : outputs) copy(o.value);  // sources returned directly
  std::vector<NodeId> mapped;
  for (NodeId o : outputs) mapped.push_back(map[o.value]);
  out.set_outputs(std::move(mapped));
  RK_RETURN_IF_ERROR(Verify(out));
  return out;
}

// A graph output the model declares with a static shape (and an element
// type) must have that type: ONNX Runtime refuses a model whose declared
// shapes contradict its ops, and a difference here is a conversion bug.
absl::Status Importer::CheckDeclaredOutputs(const Graph& graph) const {
  for (int i = 0; i < model_.graph().output_size(); ++i) {
    const onnx::ValueInfoProto& o = model_.graph().output(i);
    if (!o.type().has_tensor_type()) continue;
    const onnx::TypeProto::Tensor& t = o.type().tensor_type();
    const TensorType& actual = graph.type(graph.outputs()[i]);
    if (t.elem_type() != 0) {
      absl::StatusOr<DType> declared = DTypeFromOnnx(t.elem_type());
      if (declared.ok() && *declared != actual.dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output '", o.name(), "' is declared ", OnnxTypeName(t.elem_type()), ", its ops make ",
            actual.ToString()));
      }
    }
    if (!t.has_shape()) continue;
    std::vector<int64_t> dims;
    bool is_static = true;
    for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
      is_static = is_static && d.has_dim_value();
      dims.push_back(d.dim_value());
    }
    if (!is_static) continue;
    // Bound input shapes (--input-shape) may differ from what the model was
    // exported with only where dims were symbolic, so static outputs hold.
    if (dims != actual.shape.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", o.name(), "' is declared ", DimsText(dims), ", its ops make ",
          actual.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ImportedModel> Importer::Run() {
  RK_RETURN_IF_ERROR(CheckSupported());
  RK_RETURN_IF_ERROR(AddInputs());
  for (const onnx::NodeProto* n : nodes_) RK_RETURN_IF_ERROR(ConvertNode(*n));
  std::vector<NodeId> outputs;
  for (const onnx::ValueInfoProto& o : model_.graph().output()) {
    RK_ASSIGN_OR_RETURN(NodeId id, Value(o.name()));
    outputs.push_back(id);
  }
  if (outputs.empty()) return absl::InvalidArgumentError("the model has no outputs");
  ImportedModel result;
  RK_ASSIGN_OR_RETURN(result.graph, LiveGraph(outputs));
  RK_RETURN_IF_ERROR(CheckDeclaredOutputs(result.graph));
  RK_RETURN_IF_ERROR(FuseGelu(result.graph).status());
  // Only origins of nodes that survived.
  absl::flat_hash_set<std::string> kept;
  for (const Node& n : result.graph.nodes()) kept.insert(n.name);
  for (NodeOrigin& o : origins_) {
    if (kept.contains(o.node)) result.origins.push_back(std::move(o));
  }
  result.opset = opset_;
  result.producer = model_.producer_name().empty()
                        ? ""
                        : absl::StrCat(model_.producer_name(), model_.producer_version().empty() ? "" : " ",
                                       model_.producer_version());
  result.initializer_bytes = initializer_bytes_;
  return result;
}

}  // namespace

std::string SanitizeName(const std::string& onnx_name) {
  std::string out;
  for (char c : onnx_name) out.push_back(IsNameChar(c) ? c : '_');
  size_t start = out.find_first_not_of('_');
  out = start == std::string::npos ? "" : out.substr(start);
  if (!IsValidNodeName(out)) out = "n" + out;
  return out;
}

absl::StatusOr<ImportedModel> ImportModel(const onnx::ModelProto& model,
                                          const ImportOptions& options) {
  RK_ASSIGN_OR_RETURN(int64_t opset, DefaultOpset(model));
  RK_ASSIGN_OR_RETURN(ModelNodes nodes, ModelNodesToConvert(model));
  Importer importer(model, options, opset, nodes.nodes);
  RK_ASSIGN_OR_RETURN(ImportedModel imported, importer.Run());
  imported.functions_inlined = nodes.functions_inlined;
  return imported;
}

absl::StatusOr<ImportedModel> ImportModelFile(const std::string& path, ImportOptions options) {
  RK_ASSIGN_OR_RETURN(onnx::ModelProto model, ReadModelFile(path));
  options.model_dir = std::filesystem::path(path).parent_path().string();
  if (options.model_dir.empty()) options.model_dir = ".";
  absl::StatusOr<ImportedModel> imported = ImportModel(model, options);
  if (!imported.ok()) {
    return absl::Status(imported.status().code(),
                        absl::StrCat(path, ": ", imported.status().message()));
  }
  return imported;
}

std::vector<std::string> SupportedOpTypes() { return ConverterOpTypes(); }

}  // namespace rk::compiler::onnx_io
