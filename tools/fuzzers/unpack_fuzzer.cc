// Fuzz harness: `reprokit unpack` (repro/bundle/pack). Any bytes as a
// .tar.zst must unpack into the output directory or fail with an error,
// never write outside it (path traversal, symlinks, hard links), never exceed
// the size limit, and leave no partial output behind on failure.
// Seeds: archives packed from the example bundles (tools/fuzzers/make_seeds.sh).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "absl/status/statusor.h"
#include "repro/bundle/pack.h"
#include "tools/fuzzers/fuzz_assert.h"

namespace fs = std::filesystem;

namespace {

// A fresh directory per process that holds only the archive and the output.
const fs::path& Sandbox() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TEST_TMPDIR");
    if (tmp == nullptr) tmp = std::getenv("TMPDIR");
    fs::path base = fs::path(tmp != nullptr ? tmp : "/tmp") /
                    ("reprokit-unpack-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "box");
    return base;
  }();
  return dir;
}

// Everything under `dir`, as paths relative to it.
std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    out.push_back(fs::relative(it->path(), dir).generic_string());
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path root = Sandbox();
  const fs::path box = root / "box";
  const fs::path archive = box / "in.tar.zst";
  const fs::path out = box / "out";
  {
    std::ofstream f(archive, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), size);
  }
  rk::repro::UnpackLimits limits;
  limits.max_total_bytes = 4 << 20;
  limits.max_entries = 2000;
  absl::StatusOr<rk::repro::PackStats> stats =
      rk::repro::UnpackBundle(archive.string(), out.string(), limits);

  // Nothing beside the sandbox's box/, and inside box/ only the archive and out/.
  std::vector<std::string> top = Listing(root);
  for (const std::string& p : top) {
    bool inside = p == "box" || p == "box/in.tar.zst" || p == "box/out" || p.rfind("box/out/", 0) == 0;
    RK_FUZZ_ASSERT(inside, "unpack wrote outside its output directory: %s", p.c_str());
  }
  if (stats.ok()) {
    RK_FUZZ_ASSERT(stats->file_bytes <= limits.max_total_bytes, "size limit exceeded");
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(out, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      RK_FUZZ_ASSERT(!it->is_symlink(), "unpack made a symlink: %s", it->path().c_str());
    }
  } else {
    RK_FUZZ_ASSERT(!fs::exists(out), "a failed unpack left %s behind", out.c_str());
  }
  std::error_code ec;
  fs::remove_all(out, ec);
  return 0;
}
