#include "repro/oracle/wire.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace rk::repro {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::Shape;
using compiler::TensorType;

class Writer {
 public:
  void U64(uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    U64(bits);
  }
  void Str(std::string_view s) {
    U64(s.size());
    out_.append(s.data(), s.size());
  }
  void Tensor(const HostTensor& t) {
    U64(static_cast<uint64_t>(t.dtype()));
    U64(t.shape().rank());
    for (int64_t d : t.shape().dims()) I64(d);
    auto bytes = t.bytes();
    Str(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  uint64_t U64() {
    uint64_t v = 0;
    if (in_.size() < sizeof v) return Fail();
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  double F64() {
    uint64_t bits = U64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string Str() {
    uint64_t n = U64();
    if (!ok_ || n > in_.size()) return Fail(), std::string();
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  HostTensor Tensor() {
    uint64_t dtype = U64(), rank = U64();
    if (!ok_ || dtype > static_cast<uint64_t>(DType::kBool) || rank > 16) {
      Fail();
      return HostTensor();
    }
    std::vector<int64_t> dims;
    for (uint64_t i = 0; i < rank; ++i) dims.push_back(I64());
    std::string bytes = Str();
    if (!ok_) return HostTensor();
    absl::StatusOr<HostTensor> t = HostTensor::FromBytes(
        TensorType(static_cast<DType>(dtype), Shape(std::move(dims))),
        absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    if (!t.ok()) {
      Fail();
      return HostTensor();
    }
    return *std::move(t);
  }
  bool AtEnd() const { return in_.empty(); }

 private:
  uint64_t Fail() {
    ok_ = false;
    in_ = {};
    return 0;
  }
  std::string_view in_;
  bool ok_ = true;
};

void WriteMetrics(Writer& w, const OutputMetrics& m) {
  w.I64(m.elements);
  for (double v : {m.max_abs_error, m.max_rel_error, m.rmse_result, m.rmse_reference,
                   m.rmse_ratio, m.cosine}) {
    w.F64(v);
  }
  w.I64(m.mismatches);
  w.I64(m.first_mismatch);
  w.U64(static_cast<uint64_t>(m.judgement));
  w.Str(m.reason);
}

OutputMetrics ReadMetrics(Reader& r) {
  OutputMetrics m;
  m.elements = r.I64();
  for (double* v : {&m.max_abs_error, &m.max_rel_error, &m.rmse_result, &m.rmse_reference,
                    &m.rmse_ratio, &m.cosine}) {
    *v = r.F64();
  }
  m.mismatches = r.I64();
  m.first_mismatch = r.I64();
  m.judgement = static_cast<Judgement>(r.U64() % 3);
  m.reason = r.Str();
  return m;
}

void WriteStrings(Writer& w, const std::vector<std::string>& v) {
  w.U64(v.size());
  for (const std::string& s : v) w.Str(s);
}

std::vector<std::string> ReadStrings(Reader& r) {
  std::vector<std::string> v;
  uint64_t n = r.U64();
  for (uint64_t i = 0; i < n && r.ok(); ++i) v.push_back(r.Str());
  return v;
}

absl::Status Malformed(const char* what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed oracle ", what));
}

}  // namespace

std::string EncodeRequest(const OracleRequest& q) {
  Writer w;
  w.Str(q.graph_text);
  w.Str(q.options_text);
  w.Str(q.policy);
  w.F64(q.tol);
  w.U64(q.compare_non_float);
  w.U64(q.classify_accuracy);
  w.I64(q.runs);
  w.U64(q.inputs.size());
  for (const HostTensor& t : q.inputs) w.Tensor(t);
  return w.Take();
}

absl::StatusOr<OracleRequest> DecodeRequest(std::string_view bytes) {
  Reader r(bytes);
  OracleRequest q;
  q.graph_text = r.Str();
  q.options_text = r.Str();
  q.policy = r.Str();
  q.tol = r.F64();
  q.compare_non_float = r.U64() != 0;
  q.classify_accuracy = r.U64() != 0;
  q.runs = static_cast<int>(r.I64());
  uint64_t n = r.U64();
  for (uint64_t i = 0; i < n && r.ok(); ++i) q.inputs.push_back(r.Tensor());
  if (!r.ok() || !r.AtEnd()) return Malformed("request");
  return q;
}

std::string EncodeVerdict(const Verdict& v) {
  Writer w;
  w.U64(static_cast<uint64_t>(v.kind));
  w.Str(v.signature.ToString());
  w.Str(v.message);
  w.Str(v.accuracy_subkind);
  w.U64(v.outputs.size());
  for (const OutputVerdict& o : v.outputs) {
    w.I64(o.index);
    w.Str(o.node);
    w.Str(o.op);
    w.Str(o.dtype);
    w.Str(o.gradient_of);
    WriteMetrics(w, o.metrics);
  }
  w.Str(v.policy);
  WriteStrings(w, v.warnings);
  w.Str(v.stderr_tail);
  WriteStrings(w, v.backtrace);
  w.F64(v.compile_seconds);
  w.F64(v.run_seconds);
  w.F64(v.reference_seconds);
  return w.Take();
}

absl::StatusOr<Verdict> DecodeVerdict(std::string_view bytes) {
  Reader r(bytes);
  Verdict v;
  uint64_t kind = r.U64();
  if (kind > static_cast<uint64_t>(VerdictKind::kCannotJudge)) return Malformed("verdict");
  v.kind = static_cast<VerdictKind>(kind);
  absl::StatusOr<Signature> sig = Signature::Parse(r.Str());
  if (!sig.ok()) return Malformed("verdict signature");
  v.signature = *sig;
  v.message = r.Str();
  v.accuracy_subkind = r.Str();
  uint64_t n = r.U64();
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    OutputVerdict o;
    o.index = static_cast<int>(r.I64());
    o.node = r.Str();
    o.op = r.Str();
    o.dtype = r.Str();
    o.gradient_of = r.Str();
    o.metrics = ReadMetrics(r);
    v.outputs.push_back(std::move(o));
  }
  v.policy = r.Str();
  v.warnings = ReadStrings(r);
  v.stderr_tail = r.Str();
  v.backtrace = ReadStrings(r);
  v.compile_seconds = r.F64();
  v.run_seconds = r.F64();
  v.reference_seconds = r.F64();
  if (!r.ok() || !r.AtEnd()) return Malformed("verdict");
  return v;
}

}  // namespace rk::repro
