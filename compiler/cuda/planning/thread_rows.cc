#include "compiler/cuda/planning/thread_rows.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "compiler/ir/dtype.h"

namespace rk::compiler::cuda {

using kernel::Expr;
using kernel::ExprKind;
using kernel::Kernel;
using kernel::Program;
using kernel::Stmt;
using kernel::StmtKind;

namespace {

constexpr int64_t kLanes = 32;
constexpr int64_t kLineBytes = 128;

// The value of an integer or bool expression with the loop variables in
// `vars`: index arithmetic and the integer ops a window's bounds use
// (compares, logic, where). nullopt for anything else (loads, floats).
std::optional<int64_t> Eval(const Kernel& k, int32_t id, const std::vector<int64_t>& vars) {
  if (id < 0) return std::nullopt;
  const Expr& e = k.exprs[id];
  if (IsFloat(e.dtype)) return std::nullopt;
  switch (e.kind) {
    case ExprKind::kConst: return e.int_value;
    case ExprKind::kLoopVar: return vars[e.var];
    case ExprKind::kCast: return IsFloat(k.exprs[e.a].dtype) ? std::nullopt : Eval(k, e.a, vars);
    case ExprKind::kIndex: {
      const std::optional<int64_t> a = Eval(k, e.a, vars), b = Eval(k, e.b, vars);
      if (!a || !b) return std::nullopt;
      switch (e.index_op) {
        case kernel::IndexOp::kAdd: return *a + *b;
        case kernel::IndexOp::kMul: return *a * *b;
        case kernel::IndexOp::kDiv: return *b > 0 ? std::optional<int64_t>(*a / *b) : std::nullopt;
        case kernel::IndexOp::kMod: return *b > 0 ? std::optional<int64_t>(*a % *b) : std::nullopt;
      }
      return std::nullopt;
    }
    case ExprKind::kOp: break;
    default: return std::nullopt;
  }
  const std::optional<int64_t> a = Eval(k, e.a, vars);
  if (!a) return std::nullopt;
  if (e.op == Op::kNot) return *a == 0 ? 1 : 0;
  if (e.op == Op::kWhere) return *a != 0 ? Eval(k, e.b, vars) : Eval(k, e.c, vars);
  const std::optional<int64_t> b = Eval(k, e.b, vars);
  if (!b) return std::nullopt;
  switch (e.op) {
    case Op::kAdd: return *a + *b;
    case Op::kSub: return *a - *b;
    case Op::kMul: return *a * *b;
    case Op::kMaximum: return std::max(*a, *b);
    case Op::kMinimum: return std::min(*a, *b);
    case Op::kEq: return *a == *b;
    case Op::kNe: return *a != *b;
    case Op::kLt: return *a < *b;
    case Op::kLe: return *a <= *b;
    case Op::kGt: return *a > *b;
    case Op::kGe: return *a >= *b;
    case Op::kAnd: return (*a != 0 && *b != 0) ? 1 : 0;
    case Op::kOr: return (*a != 0 || *b != 0) ? 1 : 0;
    default: return std::nullopt;
  }
}

// The loads in expression `id` (not those inside load indices: a gather's
// address is data).
void CollectLoads(const Kernel& k, int32_t id, std::vector<int32_t>& out) {
  if (id < 0) return;
  const Expr& e = k.exprs[id];
  if (e.kind == ExprKind::kLoad) {
    out.push_back(id);
    return;
  }
  CollectLoads(k, e.a, out);
  CollectLoads(k, e.b, out);
  CollectLoads(k, e.c, out);
}

bool HasLoop(const std::vector<const Stmt*>& stmts) {
  for (const Stmt* s : stmts) {
    if (s->kind == StmtKind::kLoop) return true;
  }
  return false;
}

// Sets the variables of `loops` from a flat position (innermost fastest).
void SetFlat(const std::vector<const Stmt*>& loops, int64_t flat, std::vector<int64_t>& vars) {
  for (size_t i = loops.size(); i-- > 0;) {
    vars[loops[i]->var] = flat % loops[i]->extent;
    flat /= loops[i]->extent;
  }
}

// A multiple of kLanes near `fraction` of `points`, with kLanes points after it.
int64_t SampleStart(int64_t points, double fraction) {
  const int64_t start = static_cast<int64_t>(static_cast<double>(points) * fraction) / kLanes * kLanes;
  return std::max<int64_t>(0, std::min(start, points - kLanes));
}

// Cache lines the loads touch, each load counted as its own warp access, when
// the lanes take 32 consecutive rows (`across_rows`) or 32 consecutive
// points of one row; loads whose address cannot be evaluated are skipped.
int64_t Lines(const Program& program, const Kernel& k, const LoopChain& rows,
                const LoopChain& reduce, const std::vector<int32_t>& loads, int64_t row0,
                int64_t point0, bool across_rows) {
  std::set<std::tuple<int32_t, int64_t>> touched;
  std::vector<int64_t> vars(k.num_vars, 0);
  for (int64_t lane = 0; lane < kLanes; ++lane) {
    SetFlat(rows.loops, row0 + (across_rows ? lane : 0), vars);
    SetFlat(reduce.loops, point0 + (across_rows ? 0 : lane), vars);
    for (int32_t id : loads) {
      const std::optional<int64_t> index = Eval(k, k.exprs[id].a, vars);
      if (!index) continue;
      const int64_t bytes = DTypeSize(program.buffers[k.exprs[id].buffer].type.dtype);
      touched.insert({id, *index * bytes / kLineBytes});
    }
  }
  return static_cast<int64_t>(touched.size());
}

}  // namespace

bool ThreadRowsEnabled() {
  const char* v = std::getenv("REPROKIT_CUDA_THREAD_ROWS");
  if (v == nullptr || *v == 0) return kThreadRowsByDefault;
  return std::strcmp(v, "0") != 0;
}

bool PrefersThreadPerRow(const Program& program, const Kernel& kernel, const LoopChain& rows,
                         const RowReduction& row) {
  if (rows.loops.empty() || row.reduce.loops.empty()) return false;
  if (rows.points < kMinThreadRows || row.reduce.points > kMaxThreadRowPoints) return false;
  if (row.reduce.points < kLanes || HasLoop(row.rest)) return false;
  std::vector<int32_t> loads;
  CollectLoads(kernel, row.reduce.body[0]->value, loads);
  if (loads.empty()) return false;
  int64_t across = 0, along = 0;
  for (double fraction : {0.25, 0.5, 0.75}) {
    const int64_t row0 = SampleStart(rows.points, fraction);
    const int64_t point0 = SampleStart(row.reduce.points, fraction);
    across += Lines(program, kernel, rows, row.reduce, loads, row0, point0, true);
    along += Lines(program, kernel, rows, row.reduce, loads, row0, point0, false);
  }
  return across < along;
}

}  // namespace rk::compiler::cuda
