// How the text format spells scalar values: float attributes, tensor literal
// elements and quoted strings. The printer and the parser both go through
// these functions, so every value that is printed parses back to the same bits
// (NaN comes back as the canonical quiet NaN with the same sign).
//
// Floats print as the shortest text that round-trips in their own dtype and
// always contain '.', 'e', "inf" or "nan", so they never read back as ints.
//
// Tested by compiler/ir/literal_test.cc.
#ifndef REPROKIT_COMPILER_IR_LITERAL_H_
#define REPROKIT_COMPILER_IR_LITERAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/ir/tensor.h"

namespace rk::compiler {

// "1.5", "-0.0", "1e+20", "inf", "-nan".
std::string FormatDouble(double value);
// Element `i` of `tensor` as literal text ("true", "-3", "0.1").
std::string FormatElement(const HostTensor& tensor, int64_t i);

// Parses float text as produced by FormatDouble (also "+x", ints, "inf",
// "nan"); InvalidArgument when malformed or out of range.
absl::StatusOr<double> ParseDouble(std::string_view text);
// Parses `text` (a number, "inf", "nan", "true" or "false") and stores it as
// element `i` of `tensor`, exactly; InvalidArgument names the reason.
absl::Status ParseElement(std::string_view text, HostTensor& tensor, int64_t i);

// A double-quoted string with \\ \" \n \t \r and \xHH escapes.
std::string QuoteString(std::string_view raw);

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_IR_LITERAL_H_
