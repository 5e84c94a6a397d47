// `reprokit store stats|verify|gc`: inspect, check and prune the content
// store; `reprokit store push|pull BUNDLE --store URL`: share a bundle's blobs
// through a remote store (docs/STORE.md).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json.h"
#include "repro/bundle/bundle_sync.h"
#include "repro/store/local_store.h"
#include "repro/store/open_store.h"
#include "repro/store/references.h"
#include "tools/flags.h"
#include "tools/store_flags.h"
#include "tools/subcommand.h"

namespace rk::tools {
namespace {

constexpr char kCommand[] = "store";

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
    Json doc = Json::MakeObject();
    doc.Set("root", Json(store.root()));
    doc.Set("objects", Json(static_cast<long long>(stats->objects)));
    doc.Set("raw_bytes", Json(static_cast<unsigned long long>(stats->raw_bytes)));
    doc.Set("stored_bytes", Json(static_cast<unsigned long long>(stats->stored_bytes)));
    doc.Set("ratio", Json(std::round(stats->ratio() * 1e4) / 1e4));
    doc.Set("unreadable", Json(static_cast<long long>(stats->unreadable)));
    doc.Set("temp_files", Json(static_cast<long long>(stats->temp_files)));
    doc.Set("temp_bytes", Json(static_cast<unsigned long long>(stats->temp_bytes)));
    std::printf("%s\n", doc.DumpPretty().c_str());
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
    Json corrupt = Json::MakeArray();
    for (const repro::CorruptObject& c : report->corrupt) {
      Json object = Json::MakeObject();
      object.Set("path", Json(c.path));
      object.Set("reason", Json(c.reason));
      corrupt.push_back(std::move(object));
    }
    Json stray = Json::MakeArray();
    for (const std::string& s : report->stray_files) stray.push_back(Json(s));
    Json doc = Json::MakeObject();
    doc.Set("root", Json(store.root()));
    doc.Set("objects", Json(static_cast<long long>(report->objects)));
    doc.Set("corrupt", std::move(corrupt));
    doc.Set("removed_corrupt", Json(repair));
    doc.Set("stray_files", std::move(stray));
    doc.Set("temp_files", Json(static_cast<long long>(report->temp_files)));
    std::printf("%s\n", doc.DumpPretty().c_str());
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
  // The references are collected once the store's objects are listed (Gc
  // calls this), so a bundle written meanwhile keeps what it pushed.
  size_t referenced_count = 0;
  absl::StatusOr<repro::GcReport> report = store.Gc(
      [&]() -> absl::StatusOr<absl::btree_set<Digest>> {
        absl::StatusOr<absl::btree_set<Digest>> referenced =
            repro::CollectReferencedDigests(bundles);
        if (referenced.ok()) referenced_count = referenced->size();
        return referenced;
      },
      /*dry_run=*/!yes);
  if (!report.ok()) return ReportError(kCommand, report.status());
  if (json) {
    Json removed = Json::MakeArray();
    for (const repro::ObjectInfo& info : report->removed) removed.push_back(Json(info.digest.Hex()));
    Json doc = Json::MakeObject();
    doc.Set("root", Json(store.root()));
    doc.Set("dry_run", Json(!yes));
    doc.Set("referenced", Json(static_cast<unsigned long long>(referenced_count)));
    doc.Set("kept", Json(static_cast<long long>(report->kept)));
    doc.Set("removed", std::move(removed));
    doc.Set("removed_bytes", Json(static_cast<unsigned long long>(report->removed_bytes)));
    doc.Set("temp_files_removed", Json(static_cast<long long>(report->temp_files_removed)));
    std::printf("%s\n", doc.DumpPretty().c_str());
    return kExitOk;
  }
  for (const repro::ObjectInfo& info : report->removed) {
    std::printf("%s %s\n", yes ? "removed" : "would remove", info.digest.Hex().c_str());
  }
  std::printf("%s %zu objects (%s), kept %lld referenced by %zu digests in the bundles\n",
              yes ? "removed" : "would remove", report->removed.size(),
              HumanBytes(report->removed_bytes).c_str(), (long long)report->kept,
              referenced_count);
  if (!yes && !report->removed.empty()) std::printf("dry run: pass --yes to delete\n");
  return kExitOk;
}

// push / pull BUNDLE: the bundle's blobs to or from the store `spec`.
int Sync(const std::string& action, const std::string& bundle, const std::string& spec,
         bool json) {
  // Push asks the server itself what it has; the local cache would answer
  // for blobs it only holds locally.
  repro::OpenStoreOptions options;
  options.no_cache = action == "push";
  absl::StatusOr<std::unique_ptr<repro::Store>> store = repro::OpenStore(spec, options);
  if (!store.ok()) return ReportStoreError(kCommand, store.status());
  absl::StatusOr<repro::SyncReport> report = action == "push"
                                                 ? repro::PushBundle(bundle, **store)
                                                 : repro::PullBundle(bundle, **store);
  if (!report.ok()) return ReportStoreError(kCommand, report.status());
  if (json) {
    Json doc = Json::MakeObject();
    doc.Set("bundle", bundle);
    doc.Set("blobs", static_cast<long long>(report->blobs));
    doc.Set(action == "push" ? "pushed" : "pulled", static_cast<long long>(report->copied));
    doc.Set("present", static_cast<long long>(report->present));
    Json missing = Json::MakeArray();
    for (const std::string& m : report->missing) missing.push_back(m);
    doc.Set("missing", std::move(missing));
    std::printf("%s\n", doc.DumpPretty().c_str());
  } else {
    std::printf("%s: %lld blobs, %lld %s, %lld already there\n", bundle.c_str(),
                (long long)report->blobs, (long long)report->copied,
                action == "push" ? "pushed" : "pulled", (long long)report->present);
    for (const std::string& m : report->missing) {
      std::printf("not in the bundle (skipped): %s\n", m.c_str());
    }
  }
  return kExitOk;
}

int RunStore(absl::Span<const std::string> args) {
  std::string root = repro::DefaultStoreRoot();
  bool json = false;
  bool yes = false;
  bool repair = false;
  std::vector<std::string> bundles;
  FlagSet flags(
      "store stats|verify|gc [--root DIR] [--json] [--bundles DIR]... [--yes]\n"
      "       store push|pull BUNDLE --store URL|DIR [--json]",
      "Inspects the content store (blobs by SHA-256, zstd-compressed; docs/STORE.md).\n"
      "  stats   objects, raw and stored bytes, compression ratio\n"
      "  verify  re-hashes every object; exit 1 if any is corrupt\n"
      "  gc      removes objects that no bundle under the --bundles roots references\n"
      "          (a 64-hex digest in a repro.json or *.rk file, or a file under a\n"
      "          bundle's blobs/cas/); a dry run unless --yes\n"
      "  push    copies a bundle's blobs to the store (a Bazel HTTP remote cache URL)\n"
      "  pull    copies the blobs a bundle lacks from the store into its blobs/\n"
      "The store is --store/--root, else $REPROKIT_STORE, else ~/.cache/reprokit/store;\n"
      "http(s)://HOST[:PORT]/PREFIX is a remote cache (docs/STORE.md). Exit: 0 ok,\n"
      "2 bad input or credentials, 125 the store cannot be reached.");
  flags.String("root", &root, "store directory");
  flags.String("store", &root, "store directory or http(s):// remote cache URL");
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
  if (positional->empty()) {
    return ReportError(kCommand, absl::InvalidArgumentError(
                                     "expected one action: stats, verify, gc, push or pull"));
  }
  const std::string& action = (*positional)[0];
  if (action == "push" || action == "pull") {
    if (positional->size() != 2) {
      return ReportError(kCommand, absl::InvalidArgumentError(
                                       absl::StrCat(action, " takes one BUNDLE directory")));
    }
    if (!bundles.empty() || yes || repair) {
      return ReportError(kCommand, absl::InvalidArgumentError(
                                       "--bundles, --yes and --repair are not for push/pull"));
    }
    return Sync(action, (*positional)[1], root, json);
  }
  if (positional->size() != 1) {
    return ReportError(kCommand, absl::InvalidArgumentError(
                                     "expected one action: stats, verify, gc, push or pull"));
  }
  if (action != "stats" && action != "verify" && action != "gc") {
    return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                     "unknown action '", action,
                                     "': expected stats, verify, gc, push or pull")));
  }
  if (repro::IsRemoteStoreSpec(root)) {
    return ReportError(kCommand, absl::InvalidArgumentError(absl::StrCat(
                                     action, " works on a local store directory; a remote cache "
                                             "keeps and evicts its own objects")));
  }
  if (action != "gc" && (!bundles.empty() || yes)) {
    return ReportError(kCommand, absl::InvalidArgumentError("--bundles and --yes are for gc"));
  }
  if (action != "verify" && repair) {
    return ReportError(kCommand, absl::InvalidArgumentError("--repair is for verify"));
  }
  // verify and gc on a store that does not exist would report a clean,
  // empty store: most likely a mistyped --root.
  if (action != "stats" && !std::filesystem::is_directory(root)) {
    return ReportError(kCommand, absl::NotFoundError(absl::StrCat(
                                     "store root ", root, " does not exist (check --root or $REPROKIT_STORE)")));
  }
  absl::StatusOr<std::unique_ptr<repro::LocalStore>> store = repro::LocalStore::Open(root);
  if (!store.ok()) return ReportError(kCommand, store.status());
  if (action == "stats") return Stats(**store, json);
  if (action == "verify") return Verify(**store, json, repair);
  return Gc(**store, json, bundles, yes);
}

}  // namespace

REPROKIT_SUBCOMMAND("store", "inspect, verify, gc the content store; push/pull bundles", &RunStore);

}  // namespace rk::tools
