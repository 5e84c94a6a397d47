// Failure signatures: the stable identity of a failure. The minimizer keeps a
// candidate only if it fails with the same signature ("fails the same way");
// the fuzzer dedups findings by it.
//
//   compile_error:<status code>:<normalized message>
//   crash:<signal name>:<frame>|<frame>|<frame>   (top 3 normalized frames)
//   crash:<signal name>@<phase>                    (when no backtrace)
//   timeout@<phase>
//   accuracy:<miscompile|precision|unknown>:<op>:<dtype>
//   accuracy:<miscompile|precision|unknown>:grad:<op>:<dtype>
//                                  (only a gradient of a joint graph fails;
//                                  repro/oracle/gradients.h)
//   nondeterministic:<op>:<dtype>
//   shape_mismatch:<op>:<how>  (an external backend returned an output of
//                   another type than the graph declares; <how> is
//                   "dtype:<declared>-><returned>", "rank:+1" / "rank:-2", or
//                   "dims" for the same rank with other sizes)
// Normalization strips what varies between runs, unrelated graph edits and
// graphs with the same cause: numbers (signed), lists of sizes ("[8,2,1]",
// "4x8"), node names (%foo) and generated names ("v9", "v9_2", "n12",
// "Add_3": trailing digit runs), file paths (also in parentheses), hex
// addresses, quoted values; dtype words ("f32", "int64") and ops with digits
// ("atan2", "conv2d") are kept. What a Python-based compiler appends about
// the graph goes first: Dynamo's "from user code:" frames and FX node, a
// call's argument dump "(*(...), **{...})", a traceback's frames (its last
// line stays). It is idempotent, and Parse normalizes a
// recorded compile error again, so bundles written under older rules match.
//
// Tested by repro/oracle/signature_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_SIGNATURE_H_
#define REPROKIT_REPRO_ORACLE_SIGNATURE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rk::repro {

enum class VerdictKind {
  kPass,
  kCompileError,
  kCrash,
  kTimeout,
  kAccuracy,
  kNondeterministic,
  kCannotJudge,
  kShapeMismatch,
};

std::string_view VerdictKindName(VerdictKind kind);  // "pass", "compile_error", ...
absl::StatusOr<VerdictKind> ParseVerdictKind(std::string_view name);
// Whether the kind is a failure worth reproducing (not pass / cannot_judge).
bool IsFailure(VerdictKind kind);

struct Signature {
  VerdictKind kind = VerdictKind::kPass;
  std::string detail;  // already normalized; "" for pass

  std::string ToString() const;  // "kind" or "kind:detail" / "kind@detail"
  static absl::StatusOr<Signature> Parse(std::string_view text);
  bool operator==(const Signature& other) const {
    return kind == other.kind && detail == other.detail;
  }
  bool operator!=(const Signature& other) const { return !(*this == other); }
};

// Strips what the file comment lists; collapses spaces.
std::string NormalizeMessage(std::string_view message);
// A backtrace frame reduced to its function name without offsets/addresses
// ("rk::compiler::Lower(...)+0x1f [0x55d...]" -> "rk::compiler::Lower").
std::string NormalizeFrame(std::string_view frame);

Signature CompileErrorSignature(std::string_view status_code, std::string_view message);
Signature CrashSignature(std::string_view signal_name, const std::vector<std::string>& frames,
                         std::string_view phase);
Signature TimeoutSignature(std::string_view phase);
Signature AccuracySignature(std::string_view subkind, std::string_view op, std::string_view dtype);
// A failure seen only in gradients: the detail is "<subkind>:grad:<op>:<dtype>".
// Which input's gradient failed is in the verdict's outputs, not here: the
// minimizer renames and cuts inputs, and the failure stays the same.
Signature GradientAccuracySignature(std::string_view subkind, std::string_view op,
                                    std::string_view dtype);

// The parts of an accuracy signature; nullopt for another kind or a
// malformed detail.
struct AccuracyDetail {
  std::string subkind;
  std::string op;
  std::string dtype;
  bool gradient = false;
};
std::optional<AccuracyDetail> ParseAccuracyDetail(const Signature& signature);
// The signature with the same gradient flag as `like` (an accuracy detail).
Signature AccuracySignatureLike(const AccuracyDetail& like, std::string_view subkind,
                                std::string_view op, std::string_view dtype);

Signature NondeterministicSignature(std::string_view op, std::string_view dtype);

// An output of type `returned` where the graph declares `declared` (type
// texts like "f32[1,64]"), produced by a node of `op`. Sizes do not count
// (minimizing shrinks them); how the type differs does.
Signature ShapeMismatchSignature(std::string_view op, std::string_view declared,
                                 std::string_view returned);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_SIGNATURE_H_
