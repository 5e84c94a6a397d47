#include "repro/oracle/accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool Close(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;  // equal infinities too
  return std::fabs(a - b) <= tol + tol * std::fabs(b);
}

// Difference that treats equal infinities as 0.
double Diff(double a, double b) { return a == b ? 0.0 : a - b; }

// Root mean square of a - fp64 over the elements where fp64 is not NaN (an
// element NaN in both is equal and left out; see TorchPolicy).
double Rmse(const HostTensor& a, const HostTensor& fp64) {
  int64_t n = a.num_elements(), kept = 0;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(fp64.GetDouble(i))) continue;
    double d = Diff(a.GetDouble(i), fp64.GetDouble(i));
    sum += d * d;
    ++kept;
  }
  return kept == 0 ? 0 : std::sqrt(sum / static_cast<double>(kept));
}

// Root mean square of the values that are not NaN.
double Rms(const HostTensor& t) {
  int64_t kept = 0;
  double sum = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = t.GetDouble(i);
    if (std::isnan(v)) continue;
    sum += v * v;
    ++kept;
  }
  return kept == 0 ? 0 : std::sqrt(sum / static_cast<double>(kept));
}

// The relative rms error rounding to `dtype` is expected to add, half its unit
// roundoff: 2^-9 for bf16 (8 significant bits), 2^-12 for f16; 0 otherwise.
double RoundingFloor(DType dtype) {
  if (dtype == DType::kBF16) return std::ldexp(1.0, -9);
  if (dtype == DType::kF16) return std::ldexp(1.0, -12);
  return 0;
}

// The first element NaN in fp64 where the result is not NaN, or -1.
int64_t FirstNaNReferenceWhereResultIsNot(const HostTensor& result, const HostTensor& fp64) {
  for (int64_t i = 0; i < fp64.num_elements(); ++i) {
    if (std::isnan(fp64.GetDouble(i)) && !std::isnan(result.GetDouble(i))) return i;
  }
  return -1;
}

// Index of the first element that is NaN or Inf in `a` where `b` is finite.
int64_t FirstNonFiniteWhereFinite(const HostTensor& a, const HostTensor& b) {
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (!std::isfinite(a.GetDouble(i)) && std::isfinite(b.GetDouble(i))) return i;
  }
  return -1;
}

// Metrics of result against native that every policy reports.
OutputMetrics BaseMetrics(const HostTensor& result, const HostTensor& native,
                          const HostTensor* fp64, double tol) {
  OutputMetrics m;
  m.elements = result.num_elements();
  double dot = 0, na = 0, nb = 0;
  for (int64_t i = 0; i < m.elements; ++i) {
    double r = result.GetDouble(i), n = native.GetDouble(i);
    double d = std::fabs(Diff(r, n));
    if (std::isnan(d) && !(std::isnan(r) && std::isnan(n))) d = std::numeric_limits<double>::infinity();
    if (std::isnan(d)) d = 0;
    m.max_abs_error = std::max(m.max_abs_error, d);
    m.max_rel_error = std::max(m.max_rel_error, d / std::max(std::fabs(n), 1e-30));
    if (!Close(r, n, tol)) {
      if (m.first_mismatch < 0) m.first_mismatch = i;
      ++m.mismatches;
    }
    if (std::isfinite(r) && std::isfinite(n)) {
      dot += r * n;
      na += r * r;
      nb += n * n;
    }
  }
  m.cosine = (na == 0 || nb == 0) ? (na == nb ? 1.0 : 0.0) : dot / std::sqrt(na * nb);
  if (fp64 != nullptr) {
    m.rmse_result = Rmse(result, *fp64);
    m.rmse_reference = Rmse(native, *fp64);
    m.rmse_ratio = m.rmse_reference == 0
                       ? (m.rmse_result == 0 ? 1.0 : std::numeric_limits<double>::infinity())
                       : m.rmse_result / m.rmse_reference;
  } else {
    m.rmse_result = m.rmse_reference = m.rmse_ratio = kNaN;
  }
  return m;
}

// Shared checks: shape/dtype agreement and non-float outputs. Returns true
// when `m` is already decided.
bool JudgeStructure(const HostTensor& result, const HostTensor& native,
                    const AccuracyOptions& options, OutputMetrics& m) {
  if (result.type() != native.type()) {
    m.judgement = Judgement::kFail;
    m.reason = absl::StrFormat("type %s differs from reference %s", result.type().ToString(),
                               native.type().ToString());
    return true;
  }
  if (!compiler::IsFloat(result.dtype())) {
    if (!options.compare_non_float) {
      m.judgement = Judgement::kPass;
      m.reason = "non-float output ignored";
    } else if (m.mismatches == 0) {
      m.judgement = Judgement::kPass;
      m.reason = "exactly equal";
    } else {
      m.judgement = Judgement::kFail;
      m.reason = absl::StrFormat("%d of %d elements differ (exact comparison)", m.mismatches,
                                 m.elements);
    }
    return true;
  }
  if (m.mismatches == 0) {
    m.judgement = Judgement::kPass;
    m.reason = "allclose to the native reference";
    return true;
  }
  return false;
}

double ResolveTol(const HostTensor& result, const AccuracyOptions& options) {
  return options.tol > 0 ? options.tol : DefaultTolerance(result.dtype());
}

// What every policy shares: the tolerance, the base metrics and the structural
// checks. A policy only judges float outputs that are not allclose to the
// native reference.
class MismatchPolicy : public AccuracyPolicy {
 public:
  OutputMetrics Judge(const HostTensor& result, const HostTensor& native, const HostTensor* fp64,
                      const AccuracyOptions& options) const final {
    double tol = ResolveTol(result, options);
    OutputMetrics m = BaseMetrics(result, native, fp64, compiler::IsFloat(result.dtype()) ? tol : 0);
    if (!JudgeStructure(result, native, options, m)) {
      JudgeMismatches(result, native, fp64, tol, options, m);
    }
    return m;
  }

 private:
  // Sets m.judgement and m.reason.
  virtual void JudgeMismatches(const HostTensor& result, const HostTensor& native,
                               const HostTensor* fp64, double tol,
                               const AccuracyOptions& options, OutputMetrics& m) const = 0;
};

class TorchPolicy : public MismatchPolicy {
 public:
  std::string_view name() const override { return "torch"; }

 private:
  void JudgeMismatches(const HostTensor& result, const HostTensor& native, const HostTensor* fp64,
                       double tol, const AccuracyOptions& options,
                       OutputMetrics& m) const override {
    const DType computed_in = options.computed_in;
    if (fp64 == nullptr) {
      m.judgement = Judgement::kFail;
      m.reason = absl::StrFormat("%d of %d elements not allclose (tol %g), no fp64 reference",
                                 m.mismatches, m.elements, tol);
      return;
    }
    if (int64_t i = FirstNaNReferenceWhereResultIsNot(result, *fp64); i >= 0) {
      m.judgement = Judgement::kCannotJudge;
      m.reason = absl::StrFormat("the fp64 reference itself has NaN at element %d", i);
      return;
    }
    if (int64_t i = FirstNonFiniteWhereFinite(result, *fp64); i >= 0) {
      m.judgement = Judgement::kFail;
      m.first_mismatch = i;
      m.reason = absl::StrFormat("non-finite result at element %d where fp64 is finite", i);
      return;
    }
    if (FirstNonFiniteWhereFinite(native, *fp64) >= 0) {
      // The native reference overflowed or produced NaN; judge the result
      // against fp64 alone.
      bool close = true;
      for (int64_t i = 0; i < result.num_elements() && close; ++i) {
        close = Close(result.GetDouble(i), fp64->GetDouble(i), tol);
      }
      m.judgement = close ? Judgement::kPass : Judgement::kFail;
      m.reason = close ? "native reference non-finite; result close to fp64"
                       : "native reference non-finite; result not close to fp64";
      return;
    }
    bool small = result.num_elements() < 1000;
    double mult = (compiler::IsLowPrecision(result.dtype()) || small || tol >= 2e-2) ? 3.0 : 2.0;
    // A computation in bf16/f16 is expected to be that far off, even where the
    // native reference's own rounding happened to land close to fp64.
    double floor = RoundingFloor(computed_in) * Rms(*fp64);
    double ref = std::max(m.rmse_reference, floor);
    double bound = mult * ref + tol / 10.0;
    // Fused code may round the output's bf16/f16 operands differently from
    // the reference (operand_rounding.h): the output's own half unit plus
    // what half a unit of each operand moves it by is within the
    // computation's precision, however lucky the native reference was.
    const bool sensitive = floor > 0 && options.operand_rounding_rms > 0 &&
                           floor + options.operand_rounding_rms + tol / 10.0 > bound;
    if (sensitive) bound = floor + options.operand_rounding_rms + tol / 10.0;
    bool ok = m.rmse_result <= bound;
    m.judgement = ok ? Judgement::kPass : Judgement::kFail;
    if (sensitive) {
      m.reason = absl::StrFormat(
          "rmse vs fp64 %.3g %s %.3g = %s rounding %.3g + operand rounding %.3g + tol/10",
          m.rmse_result, ok ? "<=" : ">", bound, std::string(compiler::DTypeName(computed_in)),
          floor, options.operand_rounding_rms);
      return;
    }
    m.reason = absl::StrFormat("rmse vs fp64 %.3g %s %.3g = %g x ref rmse %.3g + tol/10",
                               m.rmse_result, ok ? "<=" : ">", bound, mult, ref);
    if (ref > m.rmse_reference) {
      m.reason += absl::StrFormat(" (%s rounding floor)", std::string(compiler::DTypeName(computed_in)));
    }
  }
};

class StrictPolicy : public MismatchPolicy {
 public:
  std::string_view name() const override { return "strict"; }

 private:
  void JudgeMismatches(const HostTensor&, const HostTensor&, const HostTensor*, double tol,
                       const AccuracyOptions&, OutputMetrics& m) const override {
    m.judgement = Judgement::kFail;
    m.reason = absl::StrFormat("%d of %d elements not allclose (tol %g)", m.mismatches,
                               m.elements, tol);
  }
};

class CosinePolicy : public MismatchPolicy {
 public:
  std::string_view name() const override { return "cosine"; }

 private:
  void JudgeMismatches(const HostTensor&, const HostTensor&, const HostTensor*, double,
                       const AccuracyOptions&, OutputMetrics& m) const override {
    bool ok = m.cosine >= 0.99;
    m.judgement = ok ? Judgement::kPass : Judgement::kFail;
    m.reason = absl::StrFormat("cosine similarity %.6f %s 0.99", m.cosine, ok ? ">=" : "<");
  }
};

}  // namespace

std::string_view JudgementName(Judgement j) {
  switch (j) {
    case Judgement::kPass: return "pass";
    case Judgement::kFail: return "fail";
    case Judgement::kCannotJudge: return "cannot_judge";
  }
  return "?";
}

double DefaultTolerance(DType dtype) { return compiler::IsLowPrecision(dtype) ? 1e-2 : 1e-4; }

const AccuracyPolicy* FindAccuracyPolicy(std::string_view name) {
  static const TorchPolicy* torch = new TorchPolicy();
  static const StrictPolicy* strict = new StrictPolicy();
  static const CosinePolicy* cosine = new CosinePolicy();
  if (name == "torch") return torch;
  if (name == "strict") return strict;
  if (name == "cosine") return cosine;
  return nullptr;
}

std::vector<std::string> AccuracyPolicyNames() { return {"torch", "strict", "cosine"}; }

}  // namespace rk::repro
