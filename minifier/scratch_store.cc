#include "minifier/scratch_store.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rk::minifier {

absl::StatusOr<std::unique_ptr<ScratchStore>> ScratchStore::Create() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat((tmp != nullptr && *tmp != '\0') ? tmp : "/tmp", "/reprokit-values-XXXXXX");
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
  return std::unique_ptr<ScratchStore>(new ScratchStore(std::move(root), *std::move(store)));
}

ScratchStore::~ScratchStore() {
  store_.reset();
  std::error_code ignored;  // a scratch directory left behind is harmless
  std::filesystem::remove_all(root_, ignored);
}

}  // namespace rk::minifier
