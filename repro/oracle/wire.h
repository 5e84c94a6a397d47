// The oracle's wire format between the parent and an isolated worker: a
// request (graph text, options, oracle options, inputs) and a Verdict, as
// compact length-prefixed binary. Both ends are the same binary, so the format
// needs no versioning; it is still decoded defensively (InvalidArgument on
// any inconsistency, never a crash).
//
// Tested by repro/oracle/wire_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_WIRE_H_
#define REPROKIT_REPRO_ORACLE_WIRE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/tensor.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct OracleRequest {
  std::string graph_text;
  std::string options_text;
  std::string policy;
  double tol = 0;
  bool compare_non_float = true;
  bool classify_accuracy = true;
  int runs = 2;
  std::vector<compiler::HostTensor> inputs;
};

std::string EncodeRequest(const OracleRequest& request);
absl::StatusOr<OracleRequest> DecodeRequest(std::string_view bytes);
std::string EncodeVerdict(const Verdict& verdict);
absl::StatusOr<Verdict> DecodeVerdict(std::string_view bytes);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_WIRE_H_
