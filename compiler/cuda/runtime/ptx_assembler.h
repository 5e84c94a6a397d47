// PtxAssembler: PTX text -> a cubin (ELF machine code for one GPU arch) off
// the CUDA driver, so the modules of a program assemble on several threads at
// once (the driver's own PTX JIT is one module at a time in effect, and it is
// most of a cold GPU compile). Two implementations:
//   nvjitlink_assembler.h  libnvJitLink, dlopen'ed, in process, thread-safe;
//   ptxas_assembler.h      the toolkit's ptxas, one process per module.
// cubin_builder.h runs one over a program's modules with the on-disk cache;
// CudaProgram::Load picks one with SelectedAssembler below.
//
// Which: $REPROKIT_CUDA_ASSEMBLER = auto (default: nvjitlink, else ptxas,
// else the driver), nvjitlink, ptxas or driver; a named assembler that is not
// there falls back the same way and says so in AssemblerChoice::note.
//
// Tested by compiler/cuda/runtime/ptx_assembler_test.cc (no GPU needed; cases
// skip with the reason where the toolkit is absent).
#ifndef REPROKIT_COMPILER_CUDA_RUNTIME_PTX_ASSEMBLER_H_
#define REPROKIT_COMPILER_CUDA_RUNTIME_PTX_ASSEMBLER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rk::compiler::cuda {

class PtxAssembler {
 public:
  virtual ~PtxAssembler() = default;
  // "nvjitlink" or "ptxas".
  virtual const char* name() const = 0;
  // What makes its output what it is: the tool's version (and path), for
  // cache keys.
  virtual const std::string& identity() const = 0;
  // The options every Assemble passes besides -arch (for cache keys).
  virtual const char* options() const = 0;
  // The cubin of `ptx` for `arch` (e.g. "sm_90"). Safe to call from several
  // threads at once. An error (Internal: our PTX is our output) names the
  // tool and `module_name` and carries the tool's log.
  virtual absl::StatusOr<std::string> Assemble(std::string_view ptx, const std::string& arch,
                                               const std::string& module_name) const = 0;
};

// The arch to assemble `ptx` for on a device of compute capability
// cc_major.cc_minor: the PTX's own `.target` when it is arch-specific
// (sm_90a: such code runs on that arch only), else the device's (sm_90 PTX
// assembles forward for an sm_100 device, as the driver's JIT would).
std::string AssemblyArch(std::string_view ptx, int cc_major, int cc_minor);

// "-O3", the assemblers' optimization option, or -O0..-O3 from
// $REPROKIT_CUDA_JIT_O (0..4, the driver JIT's scale; 4 reads as 3), so one
// setting trades assembly time against code quality for every assembler.
std::string AssemblerOptLevel();

// True when `bytes` is an ELF image for a CUDA GPU (EM_CUDA): what a cubin
// read back from a cache must be before the driver is given it.
bool LooksLikeCubin(std::string_view bytes);

// Files matching `relative` (a glob) under the package folders of Python
// environments (site-packages and dist-packages of python3.* under
// $VIRTUAL_ENV, /opt/*/.venv, /opt/*, /usr/local, /usr, ~/.local), where the
// nvidia and triton wheels keep the toolkit's pieces; within one folder
// highest name first.
std::vector<std::string> PythonPackageFiles(const std::string& relative);

struct AssemblerChoice {
  std::shared_ptr<const PtxAssembler> assembler;  // null: the driver's JIT
  std::string requested;  // $REPROKIT_CUDA_ASSEMBLER, or "auto"
  std::string note;       // why a requested assembler is not the one used; "" when it is
  // "nvjitlink", "ptxas" or "driver".
  std::string name() const {
    return assembler == nullptr ? "driver" : std::string(assembler->name());
  }
};

// The assembler `requested` names ("auto", "nvjitlink", "ptxas", "driver")
// with the fallbacks above; InvalidArgument for any other name.
absl::StatusOr<AssemblerChoice> ChooseAssembler(std::string_view requested);

// ChooseAssembler($REPROKIT_CUDA_ASSEMBLER), made once per process. An
// unknown name reads as "auto" with a note saying so.
const AssemblerChoice& SelectedAssembler();

// Makes SelectedAssembler's choice on a thread of its own, and has it
// assemble a tiny module (libnvJitLink's first call costs more than later
// ones), so that both overlap the LLVM part of the first GPU compile. Only
// the first call does anything; SelectedAssembler waits for it.
void PrepareAssemblerInBackground();

// Waits for (and joins) the background preparation, if one was started; then
// no thread of it runs. A compile that started it waits on every way out, so
// the thread never outlives it: one still running at exit (a compile that
// failed before loading, e.g. without a GPU) raced the static destructors
// ("double free or corruption" at the end of compile_joint_test).
void WaitForAssemblerPreparation();

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_RUNTIME_PTX_ASSEMBLER_H_
