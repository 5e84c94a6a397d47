// ONNX Einsum lowered at import to reduce_sum, transpose, reshape,
// broadcast_to and matmul. Operands are combined left to right; each pair
// becomes one batched matmul [batch, M, K] x [batch, K, N] whose batch dims
// are the labels both operands and the result keep, K the labels summed
// between them, M and N the labels only one of them has; a label that only
// one operand has and nothing later needs is summed away first. Ellipsis
// dims are labels of their own, aligned from the right; an operand whose
// label has size 1 where another's has n is broadcast. A label repeated in
// one operand (a diagonal) is refused.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "compiler/onnx/import_ops.h"

namespace rk::compiler::onnx_io {
namespace {

// Labels: letters by their character code, ellipsis dims as 1000 + their
// distance from the ellipsis' right end.
using Labels = std::vector<int>;
constexpr int kEllipsisBase = 1000;

struct Term {
  NodeId value;
  Labels labels;
};

absl::StatusOr<Labels> ParseTerm(NodeContext& ctx, const std::string& text, int rank,
                                 int& ellipsis_rank) {
  Labels labels;
  const size_t dots = text.find("...");
  const std::string before = dots == std::string::npos ? text : text.substr(0, dots);
  const std::string after = dots == std::string::npos ? "" : text.substr(dots + 3);
  for (const std::string& part : {before, after}) {
    for (char c : part) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        return ctx.Error(absl::StrCat("equation term '", text, "' has '", std::string(1, c),
                                      "', not a letter"));
      }
    }
  }
  const int letters = static_cast<int>(before.size() + after.size());
  for (char c : before) labels.push_back(c);
  if (dots != std::string::npos) {
    // The output's "..." (rank < 0) is expanded by the caller.
    const int n = rank < 0 ? 1 : rank - letters;
    if (n < 0) return ctx.Error(absl::StrCat("term '", text, "' has more labels than rank ", rank));
    if (rank >= 0) ellipsis_rank = std::max(ellipsis_rank, n);
    for (int k = n - 1; k >= 0; --k) labels.push_back(kEllipsisBase + k);
  }
  for (char c : after) labels.push_back(c);
  if (rank >= 0 && static_cast<int>(labels.size()) != rank) {
    return ctx.Error(absl::StrCat("term '", text, "' has ", labels.size(),
                                  " labels for an operand of rank ", rank));
  }
  Labels sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return ctx.Unsupported(absl::StrCat("a label repeated in one term ('", text, "', a diagonal)"));
  }
  return labels;
}

int Find(const Labels& labels, int label) {
  auto it = std::find(labels.begin(), labels.end(), label);
  return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
}

bool Has(const Labels& labels, int label) { return Find(labels, label) >= 0; }

absl::StatusOr<NodeId> Transposed(NodeContext& ctx, NodeId x, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  Attributes attrs;
  attrs.Set("perm", perm);
  return ctx.Emit(Op::kTranspose, {x}, std::move(attrs));
}

absl::StatusOr<NodeId> Reshaped(NodeContext& ctx, NodeId x, std::vector<int64_t> dims) {
  if (ctx.type(x).shape.dims() == dims) return x;
  Attributes attrs;
  attrs.Set("shape", std::move(dims));
  return ctx.Emit(Op::kReshape, {x}, std::move(attrs));
}

// Sums away the labels of `t` that `keep` does not hold.
absl::StatusOr<Term> SumAway(NodeContext& ctx, Term t, const Labels& keep) {
  std::vector<int64_t> axes;
  Labels kept;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (Has(keep, t.labels[i])) {
      kept.push_back(t.labels[i]);
    } else {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (axes.empty()) return t;
  Attributes attrs;
  attrs.Set("axes", std::move(axes));
  attrs.Set("keepdim", false);
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kReduceSum, {t.value}, std::move(attrs)));
  return Term{r, kept};
}

// `t` transposed to `order` (a permutation of its labels).
absl::StatusOr<NodeId> Ordered(NodeContext& ctx, const Term& t, const Labels& order) {
  std::vector<int64_t> perm;
  for (int label : order) perm.push_back(Find(t.labels, label));
  return Transposed(ctx, t.value, perm);
}

// a and b combined into a term with labels `keep` ∩ (a ∪ b), in the order
// batch, a-only, b-only.
absl::StatusOr<Term> Contract(NodeContext& ctx, Term a, Term b, const Labels& keep,
                              std::map<int, int64_t>& sizes) {
  Labels ab = a.labels;
  for (int label : b.labels) {
    if (!Has(ab, label)) ab.push_back(label);
  }
  // Labels kept: those in `keep`; a label in one operand only that `keep`
  // lacks is summed away before the matmul.
  Labels keep_a = keep, keep_b = keep;
  for (int label : b.labels) keep_a.push_back(label);
  for (int label : a.labels) keep_b.push_back(label);
  RK_ASSIGN_OR_RETURN(a, SumAway(ctx, std::move(a), keep_a));
  RK_ASSIGN_OR_RETURN(b, SumAway(ctx, std::move(b), keep_b));
  Labels batch, contracted, a_only, b_only;
  for (int label : a.labels) {
    if (Has(b.labels, label)) {
      (Has(keep, label) ? batch : contracted).push_back(label);
    } else {
      a_only.push_back(label);
    }
  }
  for (int label : b.labels) {
    if (!Has(a.labels, label)) b_only.push_back(label);
  }
  // Shared labels of size 1 on one side broadcast to the other's size.
  for (Term* t : {&a, &b}) {
    std::vector<int64_t> dims = ctx.type(t->value).shape.dims(), want = dims;
    for (size_t i = 0; i < t->labels.size(); ++i) want[i] = sizes[t->labels[i]];
    if (want != dims) {
      Attributes attrs;
      attrs.Set("shape", want);
      RK_ASSIGN_OR_RETURN(t->value, ctx.Emit(Op::kBroadcastTo, {t->value}, std::move(attrs)));
    }
  }
  auto product = [&](const Labels& labels) {
    int64_t p = 1;
    for (int label : labels) p *= sizes[label];
    return p;
  };
  auto concat = [](std::initializer_list<const Labels*> parts) {
    Labels out;
    for (const Labels* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  RK_ASSIGN_OR_RETURN(NodeId x, Ordered(ctx, a, concat({&batch, &a_only, &contracted})));
  RK_ASSIGN_OR_RETURN(NodeId y, Ordered(ctx, b, concat({&batch, &contracted, &b_only})));
  const int64_t nb = product(batch), m = product(a_only), k = product(contracted),
                n = product(b_only);
  RK_ASSIGN_OR_RETURN(x, Reshaped(ctx, x, {nb, m, k}));
  RK_ASSIGN_OR_RETURN(y, Reshaped(ctx, y, {nb, k, n}));
  RK_ASSIGN_OR_RETURN(NodeId r, ctx.Emit(Op::kMatmul, {x, y}));
  Term out{r, concat({&batch, &a_only, &b_only})};
  std::vector<int64_t> dims;
  for (int label : out.labels) dims.push_back(sizes[label]);
  RK_ASSIGN_OR_RETURN(out.value, Reshaped(ctx, r, dims));
  return out;
}

}  // namespace

absl::Status ConvertEinsum(NodeContext& ctx) {
  RK_ASSIGN_OR_RETURN(std::string equation, ctx.AttrString("equation", ""));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> texts = absl::StrSplit(lhs, ',');
  if (static_cast<int>(texts.size()) != ctx.num_inputs()) {
    return ctx.Error(absl::StrCat("equation '", equation, "' has ", texts.size(), " terms for ",
                                  ctx.num_inputs(), " inputs"));
  }
  std::vector<Term> terms;
  std::map<int, int64_t> sizes;
  int ellipsis_rank = 0;
  DType dtype = DType::kF32;
  for (size_t i = 0; i < texts.size(); ++i) {
    RK_ASSIGN_OR_RETURN(NodeId x, ctx.Input(static_cast<int>(i)));
    const Shape shape = ctx.type(x).shape;
    if (i == 0) dtype = ctx.type(x).dtype;
    if (ctx.type(x).dtype != dtype) return ctx.Error("operands differ in dtype");
    RK_ASSIGN_OR_RETURN(Labels labels, ParseTerm(ctx, texts[i], shape.rank(), ellipsis_rank));
    for (size_t d = 0; d < labels.size(); ++d) {
      int64_t& size = sizes.try_emplace(labels[d], shape.dim(d)).first->second;
      if (size == 1) size = shape.dim(d);
      if (shape.dim(d) != size && shape.dim(d) != 1) {
        return ctx.Error(absl::StrCat("label '", labels[d] < kEllipsisBase
                                                    ? std::string(1, char(labels[d]))
                                                    : std::string("..."),
                                      "' has sizes ", size, " and ", shape.dim(d)));
      }
    }
    terms.push_back({x, std::move(labels)});
  }
  Labels output;
  if (arrow != std::string::npos) {
    int unused = 0;
    RK_ASSIGN_OR_RETURN(output, ParseTerm(ctx, equation.substr(arrow + 2), -1, unused));
    // The output's "..." stands for all ellipsis dims.
    Labels expanded;
    for (int label : output) {
      if (label >= kEllipsisBase) continue;
      expanded.push_back(label);
    }
    const size_t dots = equation.find("...", arrow);
    if (dots != std::string::npos) {
      const size_t at = dots - (arrow + 2);  // letters before the "..."
      Labels ell;
      for (int k = ellipsis_rank - 1; k >= 0; --k) ell.push_back(kEllipsisBase + k);
      expanded.insert(expanded.begin() + at, ell.begin(), ell.end());
    }
    output = expanded;
    for (int label : output) {
      if (!sizes.count(label)) {
        return ctx.Error(absl::StrCat("output label '", std::string(1, char(label)),
                                      "' is in no input term"));
      }
    }
  } else {
    // Implicit output: ellipsis dims, then the letters used once, sorted.
    std::map<int, int> uses;
    for (const Term& t : terms) {
      for (int label : t.labels) ++uses[label];
    }
    for (int k = ellipsis_rank - 1; k >= 0; --k) output.push_back(kEllipsisBase + k);
    for (const auto& [label, count] : uses) {
      if (label < kEllipsisBase && count == 1) output.push_back(label);
    }
  }
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    // Keep what the output or a later operand needs.
    Labels keep = output;
    for (size_t j = i + 1; j < terms.size(); ++j) {
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    }
    RK_ASSIGN_OR_RETURN(acc, Contract(ctx, std::move(acc), terms[i], keep, sizes));
  }
  RK_ASSIGN_OR_RETURN(acc, SumAway(ctx, std::move(acc), output));
  // A single operand's size-1 dims broadcast where the output wants more.
  RK_ASSIGN_OR_RETURN(NodeId r, Ordered(ctx, acc, output));
  std::vector<int64_t> dims;
  for (int label : output) dims.push_back(sizes[label]);
  if (ctx.type(r).shape.dims() != dims) {
    Attributes attrs;
    attrs.Set("shape", dims);
    RK_ASSIGN_OR_RETURN(r, ctx.Emit(Op::kBroadcastTo, {r}, std::move(attrs)));
  }
  ctx.SetOutput(0, r);
  return absl::OkStatus();
}

}  // namespace rk::compiler::onnx_io
