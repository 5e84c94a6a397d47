// `reprokit store stats|verify|gc`: inspect, check and prune the content
// store (docs/STORE.md).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "repro/store/local_store.h"
#include "repro/store/references.h"
#include "tools/flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kCommand[] = "store";

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string HumanBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? absl::StrCat(bytes, " B") : absl::StrFormat("%.1f %s", value, units[unit]);
}

int Stats(repro::LocalStore& store, bool json) {
  absl::StatusOr<repro::StoreStats> stats = store.Stats();
  if (!stats.ok()) return ReportError(kCommand, stats.status());
  if (json) {
    std::printf(
        "{\"root\": %s, \"objects\": %lld, \"raw_bytes\": %llu, \"stored_bytes\": %llu, "
        "\"ratio\": %.4f, \"unreadable\": %lld, \"temp_files\": %lld, \"temp_bytes\": %llu}\n",
        JsonString(store.root()).c_str(), (long long)stats->objects,
        (unsigned long long)stats->raw_bytes, (unsigned long long)stats->stored_bytes,
        stats->ratio(), (long long)stats->unreadable, (long long)stats->temp_files,
        (unsigned long long)stats->temp_bytes);
    return kExitOk;
  }
  std::printf("store         %s\n", store.root().c_str());
  std::printf("objects       %lld\n", (long long)stats->objects);
  std::printf("raw bytes     %s (%llu)\n", HumanBytes(stats->raw_bytes).c_str(),
              (unsigned long long)stats->raw_bytes);
  std::printf("stored bytes  %s (%llu)\n", HumanBytes(stats->stored_bytes).c_str(),
              (unsigned long long)stats->stored_bytes);
  std::printf("ratio         %.2f\n", stats->ratio());
  if (stats->unreadable > 0) {
    std::printf("unreadable    %lld (run `reprokit store verify`)\n", (long long)stats->unreadable);
  }
  if (stats->temp_files > 0) {
    std::printf("temp files    %lld (%s): writes in progress or abandoned\n",
                (long long)stats->temp_files, HumanBytes(stats->temp_bytes).c_str());
  }
  return kExitOk;
}

int Verify(repro::LocalStore& store, bool json, bool repair) {
  absl::StatusOr<repro::VerifyReport> report = store.Verify(repair);
  if (!report.ok()) return ReportError(kCommand, report.status());
  if (json) {
    std::string corrupt, stray;
    for (const repro::CorruptObject& c : report->corrupt) {
      absl::StrAppend(&corrupt, corrupt.empty() ? "" : ", ", "{\"path\": ", JsonString(c.path),
                      ", \"reason\": ", JsonString(c.reason), "}");
    }
    for (const std::string& s : report->stray_files) {
      absl::StrAppend(&stray, stray.empty() ? "" : ", ", JsonString(s));
    }
    std::printf(
        "{\"root\": %s, \"objects\": %lld, \"corrupt\": [%s], \"removed_corrupt\": %s, "
        "\"stray_files\": [%s], \"temp_files\": %lld}\n",
        JsonString(store.root()).c_str(), (long long)report->objects, corrupt.c_str(),
        repair ? "true" : "false", stray.c_str(), (long long)report->temp_files);
  } else {
    for (const repro::CorruptObject& c : report->corrupt) {
      std::printf("corrupt: %s\n", c.reason.c_str());
    }
    for (const std::string& s : report->stray_files) std::printf("stray file: %s\n", s.c_str());
    if (report->corrupt.empty()) {
      std::printf("%lld objects verified, all intact\n", (long long)report->objects);
    } else {
      std::printf("%zu of %lld objects corrupt%s\n", report->corrupt.size(),
                  (long long)report->objects,
                  repair ? " (removed; storing their blobs again restores them)"
                         : " (--repair removes them)");
    }
  }
  return report->corrupt.empty() ? kExitOk : kExitReproduces;
}

int Gc(repro::LocalStore& store, bool json, const std::vector<std::string>& bundles, bool yes) {
  if (bundles.empty()) {
    return ReportError(kCommand, absl::InvalidArgumentError(
                                     "gc needs at least one --bundles DIR: without roots every "
                                     "object would count as unreferenced"));
  }
  absl::StatusOr<absl::btree_set<Digest>> referenced =
      repro::CollectReferencedDigests(bundles);
  if (!referenced.ok()) return ReportError(kCommand, referenced.status());
  absl::StatusOr<repro::GcReport> report = store.Gc(*referenced, /*dry_run=*/!yes);
  if (!report.ok()) return ReportError(kCommand, report.status());
  if (json) {
    std::string removed;
    for (const repro::ObjectInfo& info : report->removed) {
      absl::StrAppend(&removed, removed.empty() ? "" : ", ", JsonString(info.digest.Hex()));
    }
    std::printf(
        "{\"root\": %s, \"dry_run\": %s, \"referenced\": %zu, \"kept\": %lld, \"removed\": [%s], "
        "\"removed_bytes\": %llu, \"temp_files_removed\": %lld}\n",
        JsonString(store.root()).c_str(), yes ? "false" : "true", referenced->size(),
        (long long)report->kept, removed.c_str(), (unsigned long long)report->removed_bytes,
        (long long)report->temp_files_removed);
    return kExitOk;
  }
  for (const repro::ObjectInfo& info : report->removed) {
    std::printf("%s %s\n", yes ? "removed" : "would remove", info.digest.Hex().c_str());
  }
  std::printf("%s %zu objects (%s), kept %lld referenced by %zu digests in the bundles\n",
              yes ? "removed" : "would remove", report->removed.size(),
              HumanBytes(report->removed_bytes).c_str(), (long long)report->kept,
              referenced->size());
  if (!yes && !report->removed.empty()) std::printf("dry run: pass --yes to delete\n");
  return kExitOk;
}

int RunStore(absl::Span<const std::string> args) {
  std::string root = repro::DefaultStoreRoot();
  bool json = false;
  bool yes = false;
  bool repair = false;
  std::vector<std::string> bundles;
  FlagSet flags(
      "store stats|verify|gc [--root DIR] [--json] [--bundles DIR]... [--yes]",
      "Inspects the content store (blobs by SHA-256, zstd-compressed; docs/STORE.md).\n"
      "  stats   objects, raw and stored bytes, compression ratio\n"
      "  verify  re-hashes every object; exit 1 if any is corrupt\n"
      "  gc      removes objects that no bundle under the --bundles roots references\n"
      "          (a 64-hex digest in a repro.json or *.rk file, or a file under a\n"
      "          bundle's blobs/cas/); a dry run unless --yes\n"
      "The store is --root, else $REPROKIT_STORE, else ~/.cache/reprokit/store.");
  flags.String("root", &root, "store directory");
  flags.Bool("json", &json, "print one JSON object");
  flags.Repeated("bundles", &bundles, "gc: a directory of bundles (repeatable)");
  flags.Bool("yes", &yes, "gc: really delete (default: only report)");
  flags.Bool("repair", &repair, "verify: delete corrupt objects");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return ReportError(kCommand, positional.status());
  if (flags.help_requested()) {
    std::fputs(flags.Help().c_str(), stdout);
    return kExitOk;
  }
  if (positional->size() != 1) {
    return ReportError(kCommand, absl::InvalidArgumentError(
                                     "expected one action: stats, verify or gc"));
  }
  const std::string& action = (*positional)[0];
  if (action != "stats" && action != "verify" && action != "gc") {
    return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                     "unknown action '", action, "': expected stats, verify or gc")));
  }
  if (action != "gc" && (!bundles.empty() || yes)) {
    return ReportError(kCommand, absl::InvalidArgumentError("--bundles and --yes are for gc"));
  }
  if (action != "verify" && repair) {
    return ReportError(kCommand, absl::InvalidArgumentError("--repair is for verify"));
  }
  absl::StatusOr<std::unique_ptr<repro::LocalStore>> store = repro::LocalStore::Open(root);
  if (!store.ok()) return ReportError(kCommand, store.status());
  if (action == "stats") return Stats(**store, json);
  if (action == "verify") return Verify(**store, json, repair);
  return Gc(**store, json, bundles, yes);
}

}  // namespace

REPROKIT_SUBCOMMAND("store", "inspect, verify and garbage-collect the content store", &RunStore);

}  // namespace rk::tools
