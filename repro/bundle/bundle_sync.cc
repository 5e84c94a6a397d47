#include "repro/bundle/bundle_sync.h"

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "absl/container/btree_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/json.h"
#include "repro/bundle/bundle.h"
#include "repro/store/caching_store.h"
#include "repro/store/local_store.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

// Runs fn(i) for i in [0, n) on `parallel` threads; the first error by index.
absl::Status RunParallel(int n, int parallel, const std::function<absl::Status(int)>& fn) {
  std::vector<absl::Status> results(static_cast<size_t>(n));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < n; i = next++) results[static_cast<size_t>(i)] = fn(i);
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::min(n, std::max(parallel, 1)); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Digest>> BundleBlobDigests(const std::string& dir) {
  if (!IsBundleDir(dir)) {
    return absl::NotFoundError(absl::StrCat(dir, ": not a bundle (no repro.json)"));
  }
  absl::btree_set<Digest> digests;
  absl::StatusOr<std::string> graph = ReadFileToString((fs::path(dir) / kBundleGraphFile).string());
  if (!graph.ok()) return graph.status();
  for (size_t at = graph->find("sha256:"); at != std::string::npos;
       at = graph->find("sha256:", at + 7)) {
    absl::StatusOr<Digest> d = Digest::FromHex(absl::string_view(*graph).substr(at + 7, 64));
    if (d.ok()) digests.insert(*d);
  }
  absl::StatusOr<std::string> text = ReadFileToString((fs::path(dir) / kBundleJsonFile).string());
  if (!text.ok()) return text.status();
  absl::StatusOr<Json> json = ParseJson(*text);
  if (!json.ok()) return json.status();
  if (const Json* inputs = json->Find("inputs"); inputs != nullptr && inputs->is_array()) {
    for (const Json& input : inputs->array()) {
      absl::StatusOr<std::string> source = input.GetString("source");
      if (!source.ok() || *source != "blob") continue;
      absl::StatusOr<std::string> hex = input.GetString("sha256");
      if (!hex.ok()) continue;
      absl::StatusOr<Digest> d = Digest::FromHex(*hex);
      if (!d.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(dir, "/repro.json: ", d.status().message()));
      }
      digests.insert(*d);
    }
  }
  return std::vector<Digest>(digests.begin(), digests.end());
}

absl::StatusOr<SyncReport> PushBundle(const std::string& dir, Store& shared, int parallel) {
  absl::StatusOr<std::vector<Digest>> digests = BundleBlobDigests(dir);
  if (!digests.ok()) return digests.status();
  absl::StatusOr<std::unique_ptr<LocalStore>> local =
      LocalStore::Open((fs::path(dir) / kBundleBlobsDir).string());
  if (!local.ok()) return local.status();
  SyncReport report;
  report.blobs = static_cast<int64_t>(digests->size());
  std::mutex mu;
  absl::Status s = RunParallel(static_cast<int>(digests->size()), parallel, [&](int i) {
    const Digest& d = (*digests)[static_cast<size_t>(i)];
    absl::StatusOr<bool> here = (*local)->Contains(d);
    if (!here.ok()) return here.status();
    if (!*here) {
      std::lock_guard<std::mutex> lock(mu);
      ++report.unavailable;
      report.missing.push_back(d.Hex());
      return absl::OkStatus();
    }
    absl::StatusOr<bool> there = shared.Contains(d);
    if (!there.ok()) return there.status();
    if (*there) {
      std::lock_guard<std::mutex> lock(mu);
      ++report.present;
      return absl::OkStatus();
    }
    if (absl::Status c = CopyObject(**local, shared, d); !c.ok()) return c;
    std::lock_guard<std::mutex> lock(mu);
    ++report.copied;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  std::sort(report.missing.begin(), report.missing.end());
  return report;
}

absl::StatusOr<SyncReport> PullBundle(const std::string& dir, Store& shared, int parallel) {
  absl::StatusOr<std::vector<Digest>> digests = BundleBlobDigests(dir);
  if (!digests.ok()) return digests.status();
  absl::StatusOr<std::unique_ptr<LocalStore>> local =
      LocalStore::Open((fs::path(dir) / kBundleBlobsDir).string());
  if (!local.ok()) return local.status();
  SyncReport report;
  report.blobs = static_cast<int64_t>(digests->size());
  std::mutex mu;
  absl::Status s = RunParallel(static_cast<int>(digests->size()), parallel, [&](int i) {
    const Digest& d = (*digests)[static_cast<size_t>(i)];
    absl::StatusOr<bool> here = (*local)->Contains(d);
    if (!here.ok()) return here.status();
    if (*here) {
      std::lock_guard<std::mutex> lock(mu);
      ++report.present;
      return absl::OkStatus();
    }
    absl::Status c = CopyObject(shared, **local, d);
    std::lock_guard<std::mutex> lock(mu);
    if (absl::IsNotFound(c)) {
      ++report.unavailable;
      report.missing.push_back(d.Hex());
      return absl::OkStatus();
    }
    if (!c.ok()) return c;
    ++report.copied;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  std::sort(report.missing.begin(), report.missing.end());
  if (!report.missing.empty()) {
    return absl::NotFoundError(absl::StrCat(dir, ": ", report.missing.size(),
                                            " blob(s) are in neither the bundle nor the store: ",
                                            absl::StrJoin(report.missing, ", ")));
  }
  return report;
}

}  // namespace rk::repro
