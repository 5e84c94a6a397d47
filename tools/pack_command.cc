// `reprokit pack BUNDLE -o FILE.tar.zst` and `reprokit unpack FILE -o DIR`:
// one self-contained file per bundle, to attach to a bug report. Needs no tar
// or zstd binaries (repro/bundle/pack.h).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "repro/bundle/pack.h"
#include "repro/bundle/bundle_sync.h"
#include "repro/store/open_store.h"
#include "tools/output_path.h"
#include "tools/flags.h"
#include "tools/store_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

std::string BaseName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int RunPack(absl::Span<const std::string> args) {
  constexpr char kName[] = "pack";
  std::string out;
  FlagSet flags("pack BUNDLE [-o FILE.tar.zst]",
                "Packs a bundle into one .tar.zst (ustar + zstd, deterministic) to attach\n"
                "to a bug report; `reprokit unpack` or `tar --zstd -xf` opens it.\n"
                "The default output is <bundle name>.tar.zst here. Exit: 0 ok, 2 bad input.");
  flags.String("out", &out, "archive to write", 'o');
  bool force = false;
  flags.Bool("force", &force, "replace an existing archive at -o");
  std::string store_spec;
  flags.String("store", &store_spec,
               "first pull the blobs the bundle lacks from this store (directory or URL)");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "BUNDLE", &exit_code);
  if (!arg.has_value()) return exit_code;
  const std::string& bundle = *arg;
  if (out.empty()) out = BaseName(bundle) + ".tar.zst";
  if (absl::Status s = CheckOutputPath("-o", out, OutputKind::kFile); !s.ok()) {
    return ReportError(kName, s);
  }
  if (std::filesystem::exists(out) && !force) {
    return ReportError(kName, absl::AlreadyExistsError(absl::StrCat(
                                  out, " exists; pack does not overwrite files (--force replaces it)")));
  }
  if (!store_spec.empty()) {
    // A packed bundle must stand alone: fetch what only the shared store has.
    absl::StatusOr<std::unique_ptr<repro::Store>> store = repro::OpenStore(store_spec);
    if (!store.ok()) return ReportStoreError(kName, store.status());
    absl::StatusOr<repro::SyncReport> pulled = repro::PullBundle(bundle, **store);
    if (!pulled.ok()) return ReportStoreError(kName, pulled.status());
    if (pulled->copied > 0) {
      std::printf("fetched %lld blobs from the store\n", static_cast<long long>(pulled->copied));
    }
  }
  absl::StatusOr<repro::PackStats> stats = repro::PackBundle(bundle, out);
  if (!stats.ok()) return ReportError(kName, stats.status());
  std::printf("packed %lld files (%llu bytes) into %s (%llu bytes)\n",
              static_cast<long long>(stats->files),
              static_cast<unsigned long long>(stats->file_bytes), out.c_str(),
              static_cast<unsigned long long>(stats->archive_bytes));
  return kExitOk;
}

int RunUnpack(absl::Span<const std::string> args) {
  constexpr char kName[] = "unpack";
  std::string out;
  FlagSet flags("unpack FILE.tar.zst [-o DIR]",
                "Unpacks a bundle archive made by `reprokit pack` into DIR, which must not\n"
                "exist (default: the file name without .tar.zst). Checks every entry: no\n"
                "absolute paths, `..` or links, sizes and checksums, and that the result\n"
                "loads as a bundle. Exit: 0 ok, 2 bad or unsafe archive.");
  flags.String("out", &out, "directory to create", 'o');
  repro::UnpackLimits limits;
  int64_t max_bytes = static_cast<int64_t>(limits.max_total_bytes);
  flags.Int("max-bytes", &max_bytes, "most bytes of file contents to extract (default 1 GiB)");
  int exit_code = kExitOk;
  const std::optional<std::string> arg =
      ParseSingleArgument(flags, args, kName, "FILE", &exit_code);
  if (!arg.has_value()) return exit_code;
  const std::string& archive = *arg;
  if (max_bytes < 0) return ReportError(kName, absl::InvalidArgumentError("--max-bytes must be >= 0"));
  limits.max_total_bytes = static_cast<uint64_t>(max_bytes);
  if (out.empty()) {
    out = BaseName(archive);
    for (const char* suffix : {".tar.zst", ".tzst"}) {
      if (absl::EndsWith(out, suffix)) {
        out.resize(out.size() - std::string(suffix).size());
        break;
      }
    }
    if (out.empty() || out == BaseName(archive)) {
      return ReportError(kName, absl::InvalidArgumentError("cannot derive DIR; pass -o DIR"));
    }
  }
  if (absl::Status s = CheckOutputPath("-o", out, OutputKind::kDirectory); !s.ok()) {
    return ReportError(kName, s);
  }
  absl::StatusOr<repro::PackStats> stats = repro::UnpackBundle(archive, out, limits);
  if (!stats.ok()) return ReportError(kName, stats.status());
  std::printf("unpacked %lld files (%llu bytes) into %s\n", static_cast<long long>(stats->files),
              static_cast<unsigned long long>(stats->file_bytes), out.c_str());
  return kExitOk;
}

}  // namespace

REPROKIT_SUBCOMMAND("pack", "pack a bundle into one .tar.zst", &RunPack);
REPROKIT_SUBCOMMAND("unpack", "unpack a .tar.zst bundle (checked, never overwrites)",
                    &RunUnpack);

}  // namespace rk::tools
