// Finding signatures: the identity under which the fuzzer dedups failures.
//
// A finding is signed by its verdict's failure signature (kind, subkind, op,
// dtype, normalized message: repro/oracle/signature.h) plus a hash of the
// *minimized* graph's structure: ops, attributes, dtypes, operand wiring and
// shapes with every dimension bucketed to the next power of two. Constant
// values, node names and exact sizes do not count, so two random graphs that
// minimize to the same 1-3 node culprit share a signature, while the same
// verdict from structurally different culprits does not.
//
//   accuracy:miscompile:relu:f32#3f9a0c12e4b7
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
// "<verdict signature>#<GraphShapeHash>".
std::string FindingSignature(const repro::Signature& verdict, const compiler::Graph& minimized);
// A file-system and Bazel-friendly name for a finding, e.g.
// "accuracy_relu_3f9a0c12".
std::string FindingName(const repro::Signature& verdict, const compiler::Graph& minimized);

}  // namespace rk::fuzz

#endif  // REPROKIT_TESTING_FUZZ_FINDING_SIGNATURE_H_
