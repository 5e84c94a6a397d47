// drop_sign_copies: an LLVM IR clean-up run after O2 on NVPTX modules. It
// replaces copysign(a, b) with fabs(a), and fabs(b) with b, wherever b is
// known to have a clear sign bit unless it is a NaN: b is a fabs, a
// non-negative constant, or a product, quotient, sum, select, extension or
// truncation of such values, or an exponential.
//
// libdevice's erff ends in copysign(r, x); gelu (compiler/passes/decompose.h)
// calls erf on |x| / sqrt(2), so the sign copy and a redundant fabs go away
// (the NVPTX backend expands each copysign into five instructions). NaN
// results stay NaN; only the sign bit of a NaN may differ.
//
// Tested by compiler/cuda/codegen/drop_sign_copies_test.cc.
#ifndef REPROKIT_COMPILER_CUDA_CODEGEN_DROP_SIGN_COPIES_H_
#define REPROKIT_COMPILER_CUDA_CODEGEN_DROP_SIGN_COPIES_H_

#include "llvm/IR/Module.h"

namespace rk::compiler::cuda {

// Returns the number of calls rewritten.
int DropSignCopies(llvm::Module& module);

}  // namespace rk::compiler::cuda

#endif  // REPROKIT_COMPILER_CUDA_CODEGEN_DROP_SIGN_COPIES_H_
