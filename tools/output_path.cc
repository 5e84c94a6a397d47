#include "tools/output_path.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace rk::tools {

namespace fs = std::filesystem;

absl::Status CheckOutputPath(const std::string& flag, const std::string& path, OutputKind kind) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, ": an empty path"));
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  const bool exists = !ec && fs::exists(status);
  if (exists) {
    const bool is_dir = fs::is_directory(status);
    if (kind == OutputKind::kDirectory && !is_dir) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " ", path, ": exists and is not a directory (nothing was written; choose a "
          "new path or an existing directory)"));
    }
    if (kind == OutputKind::kFile && is_dir) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " ", path, ": is a directory (nothing was written; name a file)"));
    }
    const char* target = path.c_str();
    if (::access(target, W_OK | (is_dir ? X_OK : 0)) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(flag, " ", path, ": cannot write there: ",
                                                      std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  // The nearest existing folder above: a directory we may write into.
  fs::path above = fs::absolute(fs::path(path), ec).parent_path();
  while (!above.empty() && !fs::exists(above, ec) && above != above.root_path()) {
    above = above.parent_path();
  }
  if (above.empty()) above = fs::current_path(ec);
  if (!fs::is_directory(above, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " ", path, ": ", above.string(), " is not a directory (nothing was written)"));
  }
  if (::access(above.c_str(), W_OK | X_OK) != 0) {
    return absl::PermissionDeniedError(absl::StrCat(flag, " ", path, ": cannot write in ",
                                                    above.string(), ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace rk::tools
