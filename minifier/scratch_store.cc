#include "minifier/scratch_store.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "base/leftovers.h"

namespace rk::minifier {

constexpr char kScratchPrefix[] = "reprokit-values-";

absl::StatusOr<repro::LocalStore*> ScratchStore::Local() {
  absl::MutexLock lock(&mu_);
  if (store_ != nullptr) return store_.get();
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  // Runs killed with SIGKILL could not remove theirs: the pid in the name says
  // whose it was.
  RemoveLeftoversOfGoneProcesses(dir, kScratchPrefix);
  std::string pattern = absl::StrCat(dir, "/", kScratchPrefix, ::getpid(), "-XXXXXX");
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (mkdtemp(path.data()) == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot create a scratch store under ", pattern,
                                               ": ", std::strerror(errno)));
  }
  std::string root(path.data());
  repro::LocalStoreOptions options;
  options.sync = false;
  absl::StatusOr<std::unique_ptr<repro::LocalStore>> store = repro::LocalStore::Open(root, options);
  if (!store.ok()) {
    std::error_code ignored;
    std::filesystem::remove_all(root, ignored);
    return store.status();
  }
  root_ = std::move(root);
  store_ = *std::move(store);
  return store_.get();
}

std::string ScratchStore::root() const {
  absl::MutexLock lock(&mu_);
  return root_;
}

ScratchStore::~ScratchStore() {
  absl::MutexLock lock(&mu_);
  if (store_ == nullptr) return;
  store_.reset();
  std::error_code ignored;  // a scratch directory left behind is harmless
  std::filesystem::remove_all(root_, ignored);
}

absl::StatusOr<Digest> ScratchStore::Put(absl::string_view bytes,
                                                const repro::PutOptions& options) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->Put(bytes, options);
}

absl::StatusOr<Digest> ScratchStore::PutStream(repro::ByteSource& source,
                                                      const repro::PutOptions& options) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->PutStream(source, options);
}

absl::StatusOr<std::string> ScratchStore::Get(const Digest& digest) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->Get(digest);
}

absl::Status ScratchStore::GetStream(const Digest& digest, repro::ByteSink& sink) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->GetStream(digest, sink);
}

absl::StatusOr<bool> ScratchStore::Contains(const Digest& digest) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->Contains(digest);
}

absl::StatusOr<repro::ObjectInfo> ScratchStore::Stat(const Digest& digest) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->Stat(digest);
}

absl::Status ScratchStore::ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->ForEach(visit);
}

absl::Status ScratchStore::Remove(const Digest& digest) {
  absl::StatusOr<repro::LocalStore*> local = Local();
  if (!local.ok()) return local.status();
  return (*local)->Remove(digest);
}

}  // namespace rk::minifier
