#include "compiler/cuda/runtime/ptx_assembler.h"

#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "compiler/cuda/runtime/nvjitlink_assembler.h"
#include "compiler/cuda/runtime/ptxas_assembler.h"

namespace rk::compiler::cuda {

std::string AssemblyArch(std::string_view ptx, int cc_major, int cc_minor) {
  const std::string device = absl::StrCat("sm_", cc_major * 10 + cc_minor);
  constexpr std::string_view kTarget = ".target sm_";
  const size_t at = ptx.find(kTarget);
  if (at == std::string_view::npos) return device;
  size_t end = at + kTarget.size();
  while (end < ptx.size() && ptx[end] >= '0' && ptx[end] <= '9') ++end;
  // sm_90a (arch-specific) or sm_100f (family-specific): only that code's arch.
  if (end < ptx.size() && (ptx[end] == 'a' || ptx[end] == 'f')) {
    return std::string(ptx.substr(at + 8, end + 1 - (at + 8)));
  }
  return device;
}

std::string AssemblerOptLevel() {
  const char* level = std::getenv("REPROKIT_CUDA_JIT_O");
  if (level != nullptr && level[0] >= '0' && level[0] <= '4' && level[1] == 0) {
    return absl::StrCat("-O", std::min(level[0] - '0', 3));
  }
  return "-O3";
}

std::vector<std::string> PythonPackageFiles(const std::string& relative) {
  std::vector<std::string> envs;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != 0) {
    envs.push_back(venv);
  }
  for (const char* prefix : {"/opt/*/.venv", "/opt/*", "/usr/local", "/usr"}) envs.push_back(prefix);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    envs.push_back(absl::StrCat(home, "/.local"));
  }
  std::vector<std::string> out;
  for (const std::string& env : envs) {
    for (const char* packages : {"site-packages", "dist-packages"}) {
      const std::string pattern = absl::StrCat(env, "/lib/python3*/", packages, "/", relative);
      glob_t found;
      if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
        for (size_t i = found.gl_pathc; i > 0; --i) out.push_back(found.gl_pathv[i - 1]);
      }
      ::globfree(&found);
    }
  }
  return out;
}

bool LooksLikeCubin(std::string_view bytes) {
  // ELF64 header: magic, class 2, e_machine (little endian) at offset 18;
  // EM_CUDA is 190.
  constexpr size_t kMachineOffset = 18;
  if (bytes.size() < 64 || bytes.substr(0, 4) != "\x7f" "ELF" || bytes[4] != 2) return false;
  const auto lo = static_cast<unsigned char>(bytes[kMachineOffset]);
  const auto hi = static_cast<unsigned char>(bytes[kMachineOffset + 1]);
  return (lo | (hi << 8)) == 190;
}

absl::StatusOr<AssemblerChoice> ChooseAssembler(std::string_view requested) {
  if (requested.empty()) requested = "auto";
  if (requested != "auto" && requested != "nvjitlink" && requested != "ptxas" &&
      requested != "driver") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown CUDA assembler '", std::string(requested),
                     "' (REPROKIT_CUDA_ASSEMBLER: auto, nvjitlink, ptxas or driver)"));
  }
  AssemblerChoice choice;
  choice.requested = std::string(requested);
  if (requested == "driver") return choice;
  std::string why_not;
  if (requested == "auto" || requested == "nvjitlink") {
    absl::StatusOr<std::unique_ptr<PtxAssembler>> nvjitlink = MakeNvJitLinkAssembler();
    if (nvjitlink.ok()) {
      choice.assembler = *std::move(nvjitlink);
      return choice;
    }
    why_not = std::string(nvjitlink.status().message());
  }
  absl::StatusOr<std::unique_ptr<PtxAssembler>> ptxas = MakePtxasAssembler(FindPtxas());
  if (ptxas.ok()) {
    choice.assembler = *std::move(ptxas);
  } else {
    absl::StrAppend(&why_not, why_not.empty() ? "" : "; ", ptxas.status().message());
  }
  if (requested != "auto" && choice.name() != requested) {
    choice.note = absl::StrCat(std::string(requested), " unavailable (", why_not, "): using ", choice.name());
  }
  return choice;
}

namespace {

const AssemblerChoice& MakeSelection() {
  static const AssemblerChoice* choice = [] {
    const char* env = std::getenv("REPROKIT_CUDA_ASSEMBLER");
    absl::StatusOr<AssemblerChoice> chosen = ChooseAssembler(env == nullptr ? "" : env);
    if (chosen.ok()) return new AssemblerChoice(*std::move(chosen));
    auto* fallback = new AssemblerChoice(*ChooseAssembler("auto"));
    fallback->note = std::string(chosen.status().message());
    return fallback;
  }();
  return *choice;
}

// The background preparation, once started (PrepareAssemblerInBackground).
std::mutex& PrepareMutex() {
  static std::mutex mu;
  return mu;
}
std::thread*& PrepareThread() {
  static std::thread* thread = nullptr;
  return thread;
}

}  // namespace

void PrepareAssemblerInBackground() {
  std::lock_guard<std::mutex> lock(PrepareMutex());
  if (PrepareThread() != nullptr) return;
  PrepareThread() = new std::thread([] {
    const AssemblerChoice& choice = MakeSelection();
    if (choice.assembler != nullptr && std::string_view(choice.assembler->name()) == "nvjitlink") {
      (void)choice.assembler->Assemble(
          ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry rk_warm_up() { ret; }\n",
          "sm_75", "warm-up");
    }
  });
}

void WaitForAssemblerPreparation() {
  std::lock_guard<std::mutex> lock(PrepareMutex());
  if (std::thread* thread = PrepareThread(); thread != nullptr && thread->joinable()) {
    thread->join();
  }
}

const AssemblerChoice& SelectedAssembler() {
  WaitForAssemblerPreparation();
  return MakeSelection();
}

}  // namespace rk::compiler::cuda
