// Versions of reprokit and of what it was built with, for `reprokit version`
// and for the environment recorded in repro bundles.
//
// Tested by compiler/support/version_test.cc.
#ifndef REPROKIT_COMPILER_SUPPORT_VERSION_H_
#define REPROKIT_COMPILER_SUPPORT_VERSION_H_

#include <string>

namespace rk::compiler {

// reprokit's own semantic version, e.g. "0.1.0".
const char* ReprokitVersion();
// The git commit the binary was built from ("unknown" outside a checkout;
// "-dirty" suffix when tracked files had changes).
const char* GitCommit();
// The LLVM version compiled against, e.g. "19.1.7".
const char* LlvmVersion();

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_SUPPORT_VERSION_H_
