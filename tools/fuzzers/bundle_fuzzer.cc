// Fuzz harness: the bundle loader (repro/bundle). The input is a repro.json,
// placed in a bundle directory beside a fixed graph.rk (two f32[4] inputs, no
// blobs); LoadBundle must load it or return an error, never crash or allocate
// without bound; a bundle that loads must write back and load again, to the
// same bundle hash when it loaded without warnings. Seeds: the repro.json
// files of bundles captured from this graph and from examples/
// (tools/fuzzers/make_seeds.sh).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "absl/status/statusor.h"
#include "repro/bundle/bundle.h"
#include "tools/fuzzers/fuzz_assert.h"

namespace fs = std::filesystem;

namespace {

fs::path Scratch() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    if (tmp == nullptr) tmp = std::getenv("TMPDIR");
    fs::path base = fs::path(tmp != nullptr ? tmp : "/tmp") /
                    ("reprokit-bundle-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "bundle");
    std::ofstream(base / "bundle" / "graph.rk")
        << "graph @g(%x: f32[4], %y: f32[4]) {\n"
           "  %s = add(%x, %y) : f32[4]\n"
           "  %r = relu(%s) : f32[4]\n"
           "  return %r\n"
           "}\n";
    return base;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (256 << 10)) return -1;
  const fs::path dir = Scratch() / "bundle";
  {
    std::ofstream f(dir / "repro.json", std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), size);
  }
  absl::StatusOr<rk::repro::LoadedBundle> loaded = rk::repro::LoadBundle(dir.string());
  if (!loaded.ok()) return 0;
  const fs::path copy = Scratch() / "copy";
  std::error_code ec;
  fs::remove_all(copy, ec);
  absl::Status written = rk::repro::WriteBundle(loaded->bundle, loaded->inputs, copy.string());
  RK_FUZZ_ASSERT(written.ok(), "a loaded bundle does not write: %s", written.ToString().c_str());
  absl::StatusOr<rk::repro::LoadedBundle> again = rk::repro::LoadBundle(copy.string());
  RK_FUZZ_ASSERT(again.ok(), "a written bundle does not load: %s",
                 again.status().ToString().c_str());
  // A bundle loaded with warnings (a missing blob replaced by seeded data)
  // is written with what was loaded, so only a clean load must survive as is.
  if (loaded->warnings.empty()) {
    RK_FUZZ_ASSERT(
        rk::repro::BundleHash(again->bundle) == rk::repro::BundleHash(loaded->bundle),
        "write + load changed the bundle");
  }
  return 0;
}
