#include "base/leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"

namespace rk {

bool ProcessIsGone(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

long PidInLeftoverName(absl::string_view name, absl::string_view prefix) {
  if (!absl::StartsWith(name, prefix)) return -1;
  name.remove_prefix(prefix.size());
  long pid = 0;
  size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') {
    if (digits >= 9) return -1;  // longer than any pid
    pid = pid * 10 + (name[digits] - '0');
    ++digits;
  }
  if (digits == 0) return -1;
  if (digits < name.size() && name[digits] != '.' && name[digits] != '-') return -1;
  return pid;
}

std::vector<std::string> RemoveLeftoversOfGoneProcesses(const std::string& dir,
                                                        absl::string_view prefix) {
  std::vector<std::string> removed;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return removed;
  std::vector<std::string> candidates;
  while (const dirent* e = ::readdir(d)) {
    long pid = PidInLeftoverName(e->d_name, prefix);
    if (pid > 0 && pid != ::getpid() && ProcessIsGone(pid)) candidates.push_back(e->d_name);
  }
  ::closedir(d);
  for (const std::string& name : candidates) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (!ec) removed.push_back(path);
  }
  return removed;
}

std::vector<std::string> RemoveTempFilesOfGoneProcesses(const std::string& dir) {
  std::vector<std::string> removed;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return removed;
  std::vector<std::string> candidates;
  while (const dirent* e = ::readdir(d)) {
    absl::string_view name(e->d_name);
    if (!absl::StartsWith(name, ".tmp.")) continue;
    // ".tmp.<stem>.<pid>.<random>": the pid is the next-to-last field.
    size_t last = name.rfind('.');
    if (last == absl::string_view::npos || last < 5) continue;
    size_t before = name.rfind('.', last - 1);
    if (before == absl::string_view::npos || before < 4) continue;
    long pid = PidInLeftoverName(name.substr(before + 1), "");
    if (pid > 0 && pid != ::getpid() && ProcessIsGone(pid)) candidates.push_back(std::string(name));
  }
  ::closedir(d);
  for (const std::string& name : candidates) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid() || !S_ISREG(st.st_mode)) continue;
    if (::unlink(path.c_str()) == 0) removed.push_back(path);
  }
  return removed;
}

}  // namespace rk
