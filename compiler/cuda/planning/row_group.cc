#include "compiler/cuda/planning/row_group.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "compiler/cuda/planning/split_rows.h"

namespace rk::compiler::cuda {

using kernel::Expr;
using kernel::ExprKind;
using kernel::Kernel;
using kernel::Program;
using kernel::Stmt;
using kernel::StmtKind;

namespace {

// Rows beyond this are not checked element by element: such kernels stay apart.
constexpr int64_t kMaxCheckedRows = int64_t{1} << 20;

// Memory that `buffer` occupies: temps share the arena, others are their own.
struct Region {
  bool arena = false;
  int64_t begin = 0, end = 0;  // bytes in the arena, or [buffer, buffer + 1)
};

Region RegionOf(const Program& program, int32_t buffer) {
  const kernel::Buffer& b = program.buffers[buffer];
  if (b.role == kernel::BufferRole::kTemp) {
    return {true, b.arena_offset, b.arena_offset + std::max<int64_t>(b.type.byte_size(), 1)};
  }
  return {false, buffer, buffer + 1};
}

bool Overlap(const Program& program, int32_t x, int32_t y) {
  const Region a = RegionOf(program, x), b = RegionOf(program, y);
  return a.arena == b.arena && a.begin < b.end && b.begin < a.end;
}

bool OverlapsAny(const Program& program, int32_t x, const std::vector<int32_t>& ys) {
  return std::any_of(ys.begin(), ys.end(), [&](int32_t y) { return Overlap(program, x, y); });
}

// Whether expression `id` reads any loop variable not in `allowed`.
bool OnlyUsesVars(const Kernel& k, int32_t id, const std::vector<int32_t>& allowed) {
  if (id < 0) return true;
  const Expr& e = k.exprs[id];
  if (e.kind == ExprKind::kLoopVar) {
    return std::find(allowed.begin(), allowed.end(), e.var) != allowed.end();
  }
  if (e.kind == ExprKind::kAccRead) return false;
  return OnlyUsesVars(k, e.a, allowed) && OnlyUsesVars(k, e.b, allowed) &&
         OnlyUsesVars(k, e.c, allowed);
}

// An index expression's value with the loop variables in `vars`; nullopt for
// anything but constants, variables and index arithmetic.
std::optional<int64_t> EvalIndex(const Kernel& k, int32_t id, const std::vector<int64_t>& vars) {
  const Expr& e = k.exprs[id];
  switch (e.kind) {
    case ExprKind::kConst: return e.int_value;
    case ExprKind::kLoopVar: return vars[e.var];
    case ExprKind::kIndex: {
      std::optional<int64_t> a = EvalIndex(k, e.a, vars), b = EvalIndex(k, e.b, vars);
      if (!a || !b) return std::nullopt;
      switch (e.index_op) {
        case kernel::IndexOp::kAdd: return *a + *b;
        case kernel::IndexOp::kMul: return *a * *b;
        case kernel::IndexOp::kDiv: return *b > 0 ? std::optional<int64_t>(*a / *b) : std::nullopt;
        case kernel::IndexOp::kMod: return *b > 0 ? std::optional<int64_t>(*a % *b) : std::nullopt;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::vector<int32_t> RowVars(const KernelShape& shape) {
  std::vector<int32_t> vars;
  for (const Stmt* l : shape.phases[0].loops) vars.push_back(l->var);
  return vars;
}

// Sets the row chain's variables from a flat row number (innermost fastest).
void SetRow(const KernelShape& shape, int64_t row, std::vector<int64_t>& vars) {
  const std::vector<const Stmt*>& loops = shape.phases[0].loops;
  for (size_t i = loops.size(); i-- > 0;) {
    vars[loops[i]->var] = row % loops[i]->extent;
    row /= loops[i]->extent;
  }
}

void CollectStores(const Stmt& s, int32_t buffer, bool in_loop,
                   std::vector<std::pair<const Stmt*, bool>>& out) {
  if (s.kind == StmtKind::kStore && s.buffer == buffer) out.push_back({&s, in_loop});
  for (const Stmt& c : s.body) CollectStores(c, buffer, in_loop || s.kind == StmtKind::kLoop, out);
}

// Whether `later` reads `buffer` (written by `earlier`) only at the element
// `earlier` stored for the same row.
bool RowLocal(const Program& program, const Kernel& earlier, const KernelShape& earlier_shape,
              const Kernel& later, const KernelShape& later_shape, int32_t buffer) {
  std::vector<std::pair<const Stmt*, bool>> stores;
  for (const Stmt* s : earlier_shape.row.rest) CollectStores(*s, buffer, false, stores);
  if (stores.size() != 1 || stores[0].second) return false;
  const Stmt& store = *stores[0].first;
  const std::vector<int32_t> earlier_rows = RowVars(earlier_shape);
  const std::vector<int32_t> later_rows = RowVars(later_shape);
  if (!OnlyUsesVars(earlier, store.index, earlier_rows)) return false;
  std::vector<int32_t> loads;
  for (size_t id = 0; id < later.exprs.size(); ++id) {
    const Expr& e = later.exprs[id];
    if (e.kind != ExprKind::kLoad || !Overlap(program, e.buffer, buffer)) continue;
    if (e.buffer != buffer || !OnlyUsesVars(later, e.a, later_rows)) return false;
    loads.push_back(e.a);
  }
  const int64_t rows = earlier_shape.phases[0].points;
  if (rows > kMaxCheckedRows) return false;
  std::vector<int64_t> earlier_vars(earlier.num_vars, 0), later_vars(later.num_vars, 0);
  for (int64_t r = 0; r < rows; ++r) {
    SetRow(earlier_shape, r, earlier_vars);
    SetRow(later_shape, r, later_vars);
    const std::optional<int64_t> written = EvalIndex(earlier, store.index, earlier_vars);
    if (!written) return false;
    for (int32_t index : loads) {
      if (EvalIndex(later, index, later_vars) != written) return false;
    }
  }
  return true;
}

// Row reductions, except crashing ones and those that take the two-pass form
// (few long rows: more blocks a row beat one launch for the group).
bool CanGroup(const KernelShape& shape) {
  return shape.form == KernelForm::kRowReduction && !shape.null_load &&
         !PlanSplitRows(shape).has_value();
}

bool SameRows(const KernelShape& a, const KernelShape& b) {
  const std::vector<const Stmt*>& x = a.phases[0].loops;
  const std::vector<const Stmt*>& y = b.phases[0].loops;
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i]->extent != y[i]->extent) return false;
  }
  return true;
}

bool CanJoin(const Program& program, const std::vector<KernelShape>& shapes,
             const std::vector<int>& group, int candidate) {
  const Kernel& later = program.kernels[candidate];
  const KernelShape& later_shape = shapes[candidate];
  if (!CanGroup(later_shape)) return false;
  for (int member : group) {
    const Kernel& earlier = program.kernels[member];
    const KernelShape& earlier_shape = shapes[member];
    if (!SameRows(earlier_shape, later_shape)) return false;
    for (int32_t w : later.writes) {
      if (OverlapsAny(program, w, earlier.reads) || OverlapsAny(program, w, earlier.writes)) {
        return false;
      }
    }
    for (int32_t r : later.reads) {
      for (int32_t w : earlier.writes) {
        if (Overlap(program, r, w) &&
            !RowLocal(program, earlier, earlier_shape, later, later_shape, w)) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

std::vector<std::vector<int>> PlanRowGroups(const Program& program,
                                            const std::vector<KernelShape>& shapes) {
  std::vector<std::vector<int>> groups;
  const int n = static_cast<int>(program.kernels.size());
  for (int k = 0; k < n;) {
    std::vector<int> group{k};
    if (CanGroup(shapes[k])) {
      while (k + static_cast<int>(group.size()) < n &&
             CanJoin(program, shapes, group, k + static_cast<int>(group.size()))) {
        group.push_back(k + static_cast<int>(group.size()));
      }
    }
    k += static_cast<int>(group.size());
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace rk::compiler::cuda
