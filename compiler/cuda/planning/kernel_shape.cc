#include "compiler/cuda/planning/kernel_shape.h"

#include <algorithm>
#include <functional>

#include "compiler/cuda/planning/thread_rows.h"

namespace rk::compiler::cuda {

using kernel::Expr;
using kernel::ExprKind;
using kernel::Kernel;
using kernel::Program;
using kernel::Stmt;
using kernel::StmtKind;

namespace {

std::vector<const Stmt*> Pointers(const std::vector<Stmt>& stmts) {
  std::vector<const Stmt*> out;
  for (const Stmt& s : stmts) out.push_back(&s);
  return out;
}

bool UsesAccumulators(const Stmt& s) {
  if (s.kind == StmtKind::kAccInit || s.kind == StmtKind::kAccUpdate ||
      s.kind == StmtKind::kArgmaxUpdate) {
    return true;
  }
  for (const Stmt& c : s.body) {
    if (UsesAccumulators(c)) return true;
  }
  return false;
}

bool IsUpdate(const Stmt& s) {
  return s.kind == StmtKind::kAccUpdate || s.kind == StmtKind::kArgmaxUpdate;
}

// Whether expression `id` reads loop variable `var`.
bool UsesVar(const Kernel& k, int32_t id, int32_t var) {
  if (id < 0) return false;
  const Expr& e = k.exprs[id];
  if (e.kind == ExprKind::kLoopVar) return e.var == var;
  return UsesVar(k, e.a, var) || UsesVar(k, e.b, var) || UsesVar(k, e.c, var);
}

bool IsVar(const Kernel& k, int32_t id, int32_t var) {
  return id >= 0 && k.exprs[id].kind == ExprKind::kLoopVar && k.exprs[id].var == var;
}

bool MatchRowReduction(const std::vector<const Stmt*>& body, RowReduction& row) {
  size_t i = 0;
  while (i < body.size() && body[i]->kind == StmtKind::kAccInit) row.inits.push_back(body[i++]);
  if (row.inits.empty() || i >= body.size() || body[i]->kind != StmtKind::kLoop) return false;
  row.reduce = PeelChain({body[i++]});
  if (row.reduce.body.size() != 1 || !IsUpdate(*row.reduce.body[0])) return false;
  for (; i < body.size(); ++i) {
    if (UsesAccumulators(*body[i]) || body[i]->kind == StmtKind::kNullLoad) return false;
    row.rest.push_back(body[i]);
  }
  return true;
}

// The matmul body of one row (matmul_lowering.cc): zero the local row, the
// k-j update loop, the store loop.
bool MatchMatmul(const Program& program, const Kernel& k, const LoopChain& rows,
                 MatmulPattern& mm) {
  const std::vector<const Stmt*>& body = rows.body;
  if (body.size() != 3) return false;
  for (const Stmt* s : body) {
    if (s->kind != StmtKind::kLoop || s->body.size() != 1) return false;
  }
  const Stmt& zero = body[0]->body[0];
  const Stmt& k_loop = *body[1];
  const Stmt& store_loop = *body[2];
  if (zero.kind != StmtKind::kStore || program.buffers[zero.buffer].role != kernel::BufferRole::kLocal) {
    return false;
  }
  mm.row_buffer = zero.buffer;
  const Stmt& j_loop = k_loop.body[0];
  if (j_loop.kind != StmtKind::kLoop || j_loop.body.size() != 1) return false;
  const Stmt& update = j_loop.body[0];
  if (update.kind != StmtKind::kStore || update.buffer != mm.row_buffer ||
      !IsVar(k, update.index, j_loop.var)) {
    return false;
  }
  const Expr& sum = k.exprs[update.value];
  if (sum.kind != ExprKind::kOp || sum.op != Op::kAdd) return false;
  const Expr& prod = k.exprs[sum.b];
  const Expr& acc = k.exprs[sum.a];
  if (acc.kind != ExprKind::kLoad || acc.buffer != mm.row_buffer || prod.kind != ExprKind::kOp ||
      prod.op != Op::kMul) {
    return false;
  }
  mm.k_var = k_loop.var;
  mm.j_var = j_loop.var;
  mm.lhs = prod.a;
  mm.rhs = prod.b;
  mm.acc_dtype = prod.dtype;
  mm.k = k_loop.extent;
  mm.n = j_loop.extent;
  mm.store = &store_loop.body[0];
  mm.out_j_var = store_loop.var;
  if (mm.store->kind != StmtKind::kStore || store_loop.extent != mm.n) return false;
  for (size_t id = 0; id < k.exprs.size(); ++id) {
    const Expr& e = k.exprs[id];
    if (e.kind == ExprKind::kLoad && e.buffer == mm.row_buffer && IsVar(k, e.a, mm.out_j_var)) {
      mm.row_load = static_cast<int32_t>(id);
    }
  }
  if (mm.row_load < 0) return false;
  const Shape& out = program.buffers[mm.store->buffer].type.shape;
  mm.m = out.rank() >= 2 ? out.dim(out.rank() - 2) : 1;
  mm.batch_loops = rows.loops;
  if (mm.m > 1) {
    if (rows.loops.empty() || rows.loops.back()->extent != mm.m) return false;
    mm.i_var = rows.loops.back()->var;
    mm.batch_loops.pop_back();
  }
  mm.batch = 1;
  for (const Stmt* l : mm.batch_loops) mm.batch *= l->extent;
  // The tiles share A across columns and B across rows.
  if (UsesVar(k, mm.lhs, mm.j_var) || (mm.i_var >= 0 && UsesVar(k, mm.rhs, mm.i_var))) {
    return false;
  }
  return mm.batch <= 65535 && (mm.m + 63) / 64 <= 65535;
}

}  // namespace

const char* KernelFormName(KernelForm form) {
  switch (form) {
    case KernelForm::kGridStride: return "grid_stride";
    case KernelForm::kRowReduction: return "row_reduction";
    case KernelForm::kMatmul: return "tiled_matmul";
    case KernelForm::kRowPartials: return "row_partials";
    case KernelForm::kRowCombine: return "row_combine";
  }
  return "?";
}

LoopChain PeelChain(const std::vector<const Stmt*>& stmts) {
  LoopChain chain;
  std::vector<const Stmt*> current = stmts;
  while (current.size() == 1 && current[0]->kind == StmtKind::kLoop) {
    chain.loops.push_back(current[0]);
    chain.points *= std::max<int64_t>(current[0]->extent, 0);
    current = Pointers(current[0]->body);
  }
  chain.body = current;
  return chain;
}

int RowReductionThreads(int64_t reduce_points) {
  int threads = 64;
  while (threads < 1024 && threads * 4 < reduce_points) threads *= 2;
  return threads;
}

KernelShape AnalyzeKernel(const Program& program, const Kernel& kernel) {
  KernelShape shape;
  std::vector<const Stmt*> top = Pointers(kernel.body);
  if (!top.empty() && top[0]->kind == StmtKind::kNullLoad) {
    shape.null_load = true;
    top.erase(top.begin());
  }
  for (int32_t local : kernel.locals) {
    const kernel::Buffer& b = program.buffers[local];
    shape.local_bytes += b.type.num_elements() * (b.type.dtype == DType::kF64 ||
                                                          b.type.dtype == DType::kI64
                                                      ? 8
                                                      : 4);
  }
  const bool independent_phases =
      kernel.locals.empty() &&
      std::none_of(top.begin(), top.end(), [](const Stmt* s) { return UsesAccumulators(*s); });
  if (independent_phases) {
    for (const Stmt* s : top) {
      shape.phases.push_back(PeelChain({s}));
      shape.work = std::max(shape.work, shape.phases.back().points);
    }
    return shape;
  }
  LoopChain rows = PeelChain(top);
  shape.work = rows.points;
  RowReduction row;
  MatmulPattern mm;
  if (MatchRowReduction(rows.body, row) && row.reduce.points >= kMinBlockReduction) {
    if (ThreadRowsEnabled() && PrefersThreadPerRow(program, kernel, rows, row)) {
      shape.thread_per_row = true;
    } else {
      shape.form = KernelForm::kRowReduction;
      shape.row = std::move(row);
    }
  } else if (!kernel.locals.empty() && MatchMatmul(program, kernel, rows, mm)) {
    shape.form = KernelForm::kMatmul;
    shape.matmul = std::move(mm);
    shape.work = shape.matmul.batch;
  }
  shape.phases.push_back(std::move(rows));
  return shape;
}

}  // namespace rk::compiler::cuda
