#include "compiler/kernel/kernel_builder.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/kernel/buffer_plan.h"
#include "compiler/kernel/lowering.h"

namespace rk::compiler::kernel {
namespace {

int32_t AddBuffer(Program& program, BufferRole role, const TensorType& type, int external,
                  std::string name) {
  Buffer buffer;
  buffer.role = role;
  buffer.type = type;
  buffer.strides = type.shape.Strides();
  buffer.external_index = external;
  buffer.name = std::move(name);
  program.buffers.push_back(std::move(buffer));
  return static_cast<int32_t>(program.buffers.size() - 1);
}

// Buffers behind every materialized node.
absl::StatusOr<std::vector<int32_t>> AssignBuffers(const Graph& graph,
                                                   const fusion::FusionPlan& plan,
                                                   Program& program) {
  std::vector<int32_t> buffer_of(graph.num_nodes(), -1);
  std::vector<bool> is_output(graph.num_nodes(), false);
  for (NodeId out : graph.outputs()) is_output[out.value] = true;
  int input_index = 0;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(NodeId(i));
    const std::string name = "%" + graph.DisplayName(NodeId(i));
    if (node.op == Op::kInput) {
      buffer_of[i] = AddBuffer(program, BufferRole::kInput, node.type, input_index++, name);
    } else if (node.op == Op::kConstant) {
      absl::StatusOr<HostTensor> value = node.attrs.GetTensor("value");
      if (!value.ok()) return value.status();
      buffer_of[i] = AddBuffer(program, BufferRole::kConstant, node.type,
                               static_cast<int>(program.constants.size()), name);
      program.constants.push_back(*value);
    } else if (plan.materialized[i]) {
      const bool out = is_output[i];
      buffer_of[i] = AddBuffer(program, out ? BufferRole::kOutput : BufferRole::kTemp, node.type,
                               out ? program.num_output_buffers++ : -1, name);
    }
  }
  program.num_inputs = input_index;
  for (NodeId out : graph.outputs()) program.outputs.push_back(buffer_of[out.value]);
  return buffer_of;
}

void CollectStmtAccess(const std::vector<Stmt>& body, const Kernel& kernel,
                       std::set<int32_t>& reads, std::set<int32_t>& writes) {
  for (const Stmt& s : body) {
    if (s.kind == StmtKind::kLoop) CollectStmtAccess(s.body, kernel, reads, writes);
    if (s.kind == StmtKind::kStore) writes.insert(s.buffer);
  }
  for (const Expr& e : kernel.exprs) {
    if (e.kind == ExprKind::kLoad) reads.insert(e.buffer);
  }
}

void CollectAccess(const Program& program, Kernel& kernel) {
  std::set<int32_t> reads, writes;
  CollectStmtAccess(kernel.body, kernel, reads, writes);
  auto external = [&](int32_t b) { return program.buffers[b].role != BufferRole::kLocal; };
  for (int32_t b : reads) {
    if (external(b)) kernel.reads.push_back(b);
  }
  for (int32_t b : writes) {
    if (external(b)) kernel.writes.push_back(b);
  }
}

bool GroupHasFault(const Graph& graph, const fusion::FusionGroup& group, const FaultSet* faults,
                   FaultKind kind) {
  if (faults == nullptr || faults->empty()) return false;
  if (faults->Has(graph.node(group.root).op, kind)) return true;
  if (group.reduction.valid() && faults->Has(graph.node(group.reduction).op, kind)) return true;
  for (NodeId m : group.members) {
    if (faults->Has(graph.node(m).op, kind)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Program> BuildProgram(const Graph& graph, const fusion::FusionPlan& plan,
                                     const KernelOptions& options) {
  Program program;
  absl::StatusOr<std::vector<int32_t>> buffer_of = AssignBuffers(graph, plan, program);
  if (!buffer_of.ok()) return buffer_of.status();
  for (const fusion::FusionGroup& group : plan.groups) {
    Kernel kernel;
    kernel.name = absl::StrCat("k", program.kernels.size());
    kernel.detail = group.detail;
    KernelLowering lowering(graph, plan, *buffer_of, program, options, kernel);
    absl::Status status = lowering.LowerGroup(group);
    if (!status.ok()) return status;
    if (GroupHasFault(graph, group, options.faults, FaultKind::kRuntimeCrash)) {
      Stmt crash;
      crash.kind = StmtKind::kNullLoad;
      kernel.body.insert(kernel.body.begin(), crash);
    }
    CollectAccess(program, kernel);
    program.kernels.push_back(std::move(kernel));
  }
  PlanBuffers(program);
  return program;
}

}  // namespace rk::compiler::kernel
