// Checks a command's output path before any work, the same way for every
// command that writes one (capture, minify, import, export, emit, pack,
// unpack, report, fuzz --out, fuzz merge): a bad place is bad input (exit
// 2), reported before anything runs or changes, never a verdict.
//
//   kDirectory: absent, or an existing directory (the command decides whether
//               it replaces, resumes or refuses it); not an existing file.
//   kFile:      absent, or an existing file (overwritten); not a directory.
// Either way the nearest existing folder above it must be a directory the
// process may write into (missing folders between are created later by the
// command). Nothing is created or changed here.
//
// Tested by tools/output_path_test.cc and, for every command,
// tools/output_path_cli_test.sh.
#ifndef REPROKIT_TOOLS_OUTPUT_PATH_H_
#define REPROKIT_TOOLS_OUTPUT_PATH_H_

#include <string>

#include "absl/status/status.h"

namespace rk::tools {

enum class OutputKind { kDirectory, kFile };

// InvalidArgument (the path is of the wrong kind, or a file stands where a
// folder must be) or PermissionDenied (no write access), naming `flag`
// ("-o", "--workspace") and the path.
absl::Status CheckOutputPath(const std::string& flag, const std::string& path, OutputKind kind);

}  // namespace rk::tools

#endif  // REPROKIT_TOOLS_OUTPUT_PATH_H_
