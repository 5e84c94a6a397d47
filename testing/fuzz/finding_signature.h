// Finding signatures: the identity under which the fuzzer dedups failures.
//
// A finding is signed by its verdict's failure signature (kind, subkind, op,
// normalized message: repro/oracle/signature.h) plus a hash of the
// *minimized* graph's structure: ops, attributes, dtype families and operand
// wiring. Leaves (inputs, constants, full, iota) are all alike, and sizes do
// not count (shapes, and the shape/start/limit/stride attributes): the
// minimizer has already shrunk them as far as the failure allows, so what is
// left says where the random graph was cut rather than what the bug is. Two
// graphs that minimize to relu over some leaf share a signature; the same
// verdict from structurally different culprits does not.
//
//   accuracy:miscompile:relu:float#3f9a0c12e4b7
//
// Compile errors and shape mismatches are signed by the verdict alone: the
// normalized message of a compile error names the cause (an external
// backend's node names, numbers and paths are out: signature.h), so the
// same rejection found in two graphs that minimized to different shapes is
// one finding.
//
//   compile_error:runtime_error:Type (tensor(bool)) of input (vN) ...
//
// Float dtypes count as one family ("float") in both parts: a culprit
// shows up in whatever dtype the random graph gave it; the dtype stays
// visible in the finding's minimized graph and message.
//
// Tested by testing/fuzz/finding_signature_test.cc.
#ifndef REPROKIT_TESTING_FUZZ_FINDING_SIGNATURE_H_
#define REPROKIT_TESTING_FUZZ_FINDING_SIGNATURE_H_

#include <string>

#include "compiler/ir/graph.h"
#include "repro/oracle/signature.h"

namespace rk::fuzz {

// The bucketed structural text hashed by GraphShapeHash (for reports/tests).
std::string BucketedGraphText(const compiler::Graph& graph);
// First 12 hex digits of SHA-256(BucketedGraphText(graph)).
std::string GraphShapeHash(const compiler::Graph& graph);
// "<verdict signature>#<GraphShapeHash>", or the verdict signature alone
// for compile_error and shape_mismatch.
std::string FindingSignature(const repro::Signature& verdict, const compiler::Graph& minimized);
// A file-system and Bazel-friendly name for a finding, e.g.
// "accuracy_relu_3f9a0c12".
std::string FindingName(const repro::Signature& verdict, const compiler::Graph& minimized);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_FINDING_SIGNATURE_H_
