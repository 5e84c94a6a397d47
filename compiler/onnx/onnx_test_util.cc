#include "compiler/onnx/onnx_test_util.h"

namespace rk::compiler::onnx_io {

onnx::ValueInfoProto MakeValueInfo(const ValueSpec& spec) {
  onnx::ValueInfoProto info;
  info.set_name(spec.name);
  onnx::TypeProto::Tensor* t = info.mutable_type()->mutable_tensor_type();
  t->set_elem_type(spec.elem_type);
  if (spec.has_shape) {
    onnx::TensorShapeProto* shape = t->mutable_shape();
    for (int64_t d : spec.dims) {
      if (d < 0) {
        shape->add_dim()->set_dim_param("N");
      } else {
        shape->add_dim()->set_dim_value(d);
      }
    }
  }
  return info;
}

onnx::NodeProto MakeNode(const std::string& op_type, std::vector<std::string> inputs,
                         std::vector<std::string> outputs, const std::string& name) {
  onnx::NodeProto node;
  node.set_op_type(op_type);
  node.set_name(name);
  for (std::string& i : inputs) node.add_input(std::move(i));
  for (std::string& o : outputs) node.add_output(std::move(o));
  return node;
}

void AddIntAttr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void AddFloatAttr(onnx::NodeProto& node, const std::string& name, float value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

void AddIntsAttr(onnx::NodeProto& node, const std::string& name, std::vector<int64_t> values) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

onnx::TensorProto FloatTensor(const std::string& name, std::vector<int64_t> dims,
                              std::vector<float> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

onnx::TensorProto Int64Tensor(const std::string& name, std::vector<int64_t> dims,
                              std::vector<int64_t> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

onnx::ModelProto MakeModel(std::vector<onnx::NodeProto> nodes, std::vector<ValueSpec> inputs,
                           std::vector<ValueSpec> outputs,
                           std::vector<onnx::TensorProto> initializers, int64_t opset) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto* id = model.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("test");
  for (onnx::NodeProto& n : nodes) *g->add_node() = std::move(n);
  for (const ValueSpec& i : inputs) *g->add_input() = MakeValueInfo(i);
  for (const ValueSpec& o : outputs) *g->add_output() = MakeValueInfo(o);
  for (onnx::TensorProto& t : initializers) *g->add_initializer() = std::move(t);
  return model;
}

}  // namespace rk::compiler::onnx_io
