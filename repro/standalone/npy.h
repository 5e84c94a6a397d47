// NumPy .npy files (format version 1.0, C order, little-endian) of host
// tensors, for standalone reproducers that run with numpy alone. bf16, which
// numpy has no dtype for, is written as f32 (exact: every bf16 is an f32).
//
// Tested by repro/standalone/standalone_test.cc.
#ifndef REPROKIT_REPRO_STANDALONE_NPY_H_
#define REPROKIT_REPRO_STANDALONE_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/ir/tensor.h"

namespace rk::repro {

// The file's bytes.
std::string NpyBytes(const compiler::HostTensor& tensor);
absl::Status WriteNpy(const compiler::HostTensor& tensor, const std::string& path);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_NPY_H_
