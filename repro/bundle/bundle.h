// Repro bundles: a directory that holds everything needed to replay one
// compilation (schema in docs/BUNDLE.md).
//
//   graph.rk     the graph in the text format; constants above the inline
//                limit are `sha256:<hex>` references into blobs/
//   repro.json   format + version, compile options, inputs, expected verdict,
//                tolerance and policy, environment, provenance, minimization
//   blobs/       a LocalStore rooted here (`blobs/cas/<2 hex>/<64 hex>`)
//                holding every blob the bundle names, so it is self-contained
//   README.md    generated: what fails and how to rerun it
//
// WriteBundle is atomic: the bundle is assembled in a temporary directory
// beside `dir` and renamed into place, so readers never see half a bundle. It
// replaces an existing bundle but refuses any other existing, non-empty path.
//
// LoadBundle validates everything before returning: format and version, the
// graph parses and verifies, the inputs agree with the graph's signature
// (count, names, dtypes, shapes, byte sizes) and every blob's digest is
// checked (DataLoss when corrupt or of the wrong size). A missing input blob
// is not an error: the input is replaced by deterministic seeded random data
// (what compiler/ir/seeded_inputs.h gives for seed 0 at that input's
// position) and LoadedBundle::warnings says so. A bundle edited after it was
// written (its recorded hash no longer matches) loads with a warning too.
//
// Tested by repro/bundle/bundle_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_BUNDLE_H_
#define REPROKIT_REPRO_BUNDLE_BUNDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/digest.h"
#include "base/json.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/options/compile_options.h"
#include "repro/oracle/verdict.h"
#include "repro/store/store.h"

namespace rk::repro {

inline constexpr char kBundleFormat[] = "reprokit-bundle";
inline constexpr int kBundleVersion = 1;
inline constexpr char kBundleGraphFile[] = "graph.rk";
inline constexpr char kBundleJsonFile[] = "repro.json";
inline constexpr char kBundleBlobsDir[] = "blobs";
inline constexpr char kBundleReadmeFile[] = "README.md";
// Constants with more elements than this live in blobs/ rather than inline.
inline constexpr int64_t kBundleInlineLimit = 64;

// Where an input's values come from.
struct BundleInput {
  enum class Source {
    kBlob,    // raw bytes stored in blobs/ under `sha256`
    kRandom,  // HostTensor::Random(type, seed, random)
  };
  std::string name;  // the graph input's name (without '%')
  compiler::TensorType type;
  Source source = Source::kBlob;
  // kBlob: filled in by WriteBundle from the values.
  Digest sha256;
  uint64_t byte_size = 0;
  // kRandom: the recipe.
  uint64_t seed = 0;
  compiler::RandomSpec random;
};

struct Bundle {
  compiler::Graph graph;
  compiler::CompileOptions options;
  std::vector<BundleInput> inputs;
  Verdict expected;
  // False when no oracle judged the run; `expected` then holds only what the
  // compile result showed (pass or compile_error).
  bool judged = true;
  // The expected accuracy failure was judged without the fp64 recompile that
  // tells a miscompile from precision loss (its subkind is "unknown"):
  // `capture --precision-check deferred`, the default with an external
  // backend. Whoever judges the bundle against `expected` judges it the same
  // way, without the recompile; `minify` runs the check once, on its
  // result, and writes the subkind it found (docs/BUNDLE.md, "expected").
  bool precision_check_deferred = false;
  std::string policy = "torch";
  double tol = 0;  // <= 0: the policy's per-dtype default
  // Seconds before a compile-and-run counts as a hang, as captured; <= 0: the
  // oracle's default (60 s). Replays and minify judge with it.
  double timeout_seconds = 0;
  Json environment = Json::MakeObject();
  Json provenance = Json::MakeObject();
  Json minimization = Json::MakeObject();
};

// `inputs` is aligned with bundle.inputs: the values to store for kBlob
// inputs; for kRandom inputs they must equal the recipe's output (checked).
// Digests and byte sizes in the written repro.json come from the values.
absl::Status WriteBundle(const Bundle& bundle, const std::vector<compiler::HostTensor>& inputs,
                         const std::string& dir);

struct LoadedBundle {
  Bundle bundle;
  std::vector<compiler::HostTensor> inputs;  // aligned with bundle.inputs
  std::vector<std::string> warnings;
  std::string dir;
  std::string hash;  // BundleHash of what was loaded
};

// A blob missing from the bundle's blobs/ is looked up in `fallback` (a
// shared store, e.g. a remote cache behind a local one: repro/store/
// open_store.h) before it counts as missing.
absl::StatusOr<LoadedBundle> LoadBundle(const std::string& dir, Store* fallback = nullptr);

// True when `dir` holds a repro.json whose "format" is reprokit-bundle.
bool IsBundleDir(const std::string& dir);

// Whether `actual` is the failure `bundle` records: its expected signature,
// or, when its precision check was deferred, an accuracy signature that
// differs from it only in the subkind (a judgement that ran the check names
// the subkind the bundle left "unknown").
bool MatchesExpected(const Bundle& bundle, const Signature& actual);
bool MatchesExpected(const Signature& expected, bool precision_check_deferred,
                     const Signature& actual);

// The identity of a bundle's content: SHA-256 (64 hex) over the canonical
// graph text, the compile options' text form and each input's name, type and
// digest (or random recipe). Names, environment and provenance do not count.
// Derived bundles (the minimizer's) record their parent's hash.
std::string BundleHash(const Bundle& bundle);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_BUNDLE_H_
