#include "repro/store/references.h"

#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

bool IsHexChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsReferenceFile(const fs::path& path) {
  std::string name = path.filename().string();
  return name == "repro.json" || absl::EndsWith(name, ".rk");
}

bool IsUnderBlobsCas(const fs::path& path) {
  std::string parent = path.parent_path().generic_string() + "/";
  return absl::StrContains(absl::StrCat("/", parent), "/blobs/cas/");
}

absl::Status ScanFile(const fs::path& path, absl::btree_set<Digest>& out) {
  std::string name = path.filename().string();
  if (IsUnderBlobsCas(path) && Digest::IsHex(name)) {
    out.insert(*Digest::FromHex(name));
    return absl::OkStatus();
  }
  if (!IsReferenceFile(path)) return absl::OkStatus();
  absl::StatusOr<std::string> text = ReadFileToString(path.string());
  if (!text.ok()) return text.status();
  AddDigestsInText(*text, out);
  return absl::OkStatus();
}

// Walks `root` (which exists) depth first. Writers may work beside it: a
// directory or file below the root that vanishes between its listing and its
// reading (a capture's temporary directory renamed into place, a bundle being
// replaced) is skipped, not an error. Skipping it loses nothing: a bundle's
// blobs go into a shared store only after its directory is complete, and gc
// never deletes an object written after it listed the store.
absl::Status ScanTree(const fs::path& root, absl::btree_set<Digest>& out) {
  std::vector<fs::path> pending = {root};
  while (!pending.empty()) {
    const fs::path dir = std::move(pending.back());
    pending.pop_back();
    std::error_code error;
    fs::directory_iterator it(dir, fs::directory_options::none, error);
    if (error == std::errc::no_such_file_or_directory && dir != root) continue;
    if (error) return absl::UnknownError(absl::StrCat("listing ", dir.string(), ": ", error.message()));
    for (; it != fs::directory_iterator(); it.increment(error)) {
      if (error) break;
      const fs::directory_entry& entry = *it;
      std::error_code kind_error;
      const fs::file_status status = entry.symlink_status(kind_error);
      if (kind_error) continue;  // vanished since the listing
      if (fs::is_directory(status)) {
        pending.push_back(entry.path());
      } else if (fs::is_regular_file(status)) {
        absl::Status s = ScanFile(entry.path(), out);
        if (absl::IsNotFound(s)) continue;  // vanished since the listing
        if (!s.ok()) return s;
      }
    }
    if (error && error != std::errc::no_such_file_or_directory) {
      return absl::UnknownError(absl::StrCat("listing ", dir.string(), ": ", error.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddDigestsInText(absl::string_view text, absl::btree_set<Digest>& out) {
  size_t i = 0;
  while (i < text.size()) {
    if (!IsHexChar(text[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && IsHexChar(text[i])) ++i;
    if (i - start == Digest::kHexChars) out.insert(*Digest::FromHex(text.substr(start, i - start)));
  }
}

absl::StatusOr<absl::btree_set<Digest>> CollectReferencedDigests(
    absl::Span<const std::string> roots) {
  absl::btree_set<Digest> digests;
  for (const std::string& root : roots) {
    std::error_code error;
    fs::file_status status = fs::symlink_status(root, error);
    if (error || !fs::exists(status)) {
      return absl::NotFoundError(absl::StrCat("bundle root ", root, " does not exist"));
    }
    if (fs::is_regular_file(status)) {
      if (absl::Status s = ScanFile(fs::absolute(root), digests); !s.ok()) return s;
      continue;
    }
    if (absl::Status s = ScanTree(root, digests); !s.ok()) return s;
  }
  return digests;
}

}  // namespace rk::repro
