#include "compiler/support/version.h"

#include "compiler/support/build_info_generated.h"
#include "llvm/Config/llvm-config.h"

namespace rk::compiler {

const char* ReprokitVersion() { return "0.1.0"; }
const char* GitCommit() { return REPROKIT_GIT_COMMIT; }
const char* LlvmVersion() { return LLVM_VERSION_STRING; }

}  // namespace rk::compiler
