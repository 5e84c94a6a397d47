#include "repro/bundle/environment.h"

#include <sys/utsname.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/support/cuda_probe.h"
#include "compiler/support/version.h"

namespace rk::repro {
namespace {

// "550.54.15" from the first line of /proc/driver/nvidia/version, or "".
std::string NvidiaDriverVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar ..."
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    if (!word.empty() && absl::ascii_isdigit(word[0]) && word.find('.') != std::string::npos) {
      return word;
    }
  }
  return "";
}

bool NeedsQuoting(const std::string& arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    if (!absl::ascii_isalnum(c) && std::string_view("-_./=:,+@%~").find(c) == std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "unknown";
}

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json CollectEnvironment() {
  Json env = Json::MakeObject();
  env["reprokit_version"] = compiler::ReprokitVersion();
  env["git_commit"] = compiler::GitCommit();
  env["llvm_version"] = compiler::LlvmVersion();
  utsname uts{};
  if (uname(&uts) == 0) {
    // sysname + release + machine only: nodename is the host name.
    env["os"] = absl::StrCat(uts.sysname, " ", uts.release);
    env["arch"] = std::string(uts.machine);
  }
  env["cpu_model"] = CpuModel();
  env["cpu_count"] = static_cast<int64_t>(std::thread::hardware_concurrency());
  compiler::CudaProbe cuda = compiler::ProbeCuda();
  if (cuda.usable) {
    Json gpu = Json::MakeObject();
    gpu["name"] = cuda.device_name;
    gpu["count"] = cuda.device_count;
    std::string driver = NvidiaDriverVersion();
    gpu["driver_version"] = driver.empty() ? Json() : Json(driver);
    gpu["cuda_version"] = absl::StrFormat("%d.%d", cuda.driver_version / 1000,
                                          cuda.driver_version % 1000 / 10);
    env["gpu"] = std::move(gpu);
  } else {
    env["gpu"] = Json();
  }
  return env;
}

std::string CommandLineText(const std::vector<std::string>& args) {
  const char* home_env = std::getenv("HOME");
  std::string home = home_env != nullptr ? home_env : "";
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  std::string out;
  for (const std::string& raw : args) {
    std::string arg = raw;
    size_t at = home.size() > 1 ? arg.find(home) : std::string::npos;
    if (at != std::string::npos &&
        (at + home.size() == arg.size() || arg[at + home.size()] == '/')) {
      arg = absl::StrCat(arg.substr(0, at), "~", arg.substr(at + home.size()));
    }
    if (!out.empty()) out += ' ';
    if (NeedsQuoting(arg)) {
      out += '\'';
      for (char c : arg) {
        if (c == '\'') {
          out += "'\\''";
        } else {
          out += c;
        }
      }
      out += '\'';
    } else {
      out += arg;
    }
  }
  return out;
}

std::string CurrentCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return CommandLineText(args);
}

}  // namespace rk::repro
