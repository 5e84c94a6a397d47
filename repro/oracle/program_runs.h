// What the oracle gets back from compiling a graph and running it a few
// times: the outputs of every run, or the verdict that ended it early
// (compile error, crash, timeout, cannot judge). The seam between the
// judgement (oracle.cc) and whichever compiler is judged: the built-in one or
// an external backend (backend_runner.h).
//
// Shown by repro/oracle/oracle_test.cc and repro/oracle/backend_runner_test.cc.
#ifndef REPROKIT_REPRO_ORACLE_PROGRAM_RUNS_H_
#define REPROKIT_REPRO_ORACLE_PROGRAM_RUNS_H_

#include <optional>
#include <vector>

#include "compiler/ir/tensor.h"
#include "repro/oracle/verdict.h"

namespace rk::repro {

struct ProgramRuns {
  std::optional<Verdict> ended;  // set: the judgement is this verdict
  std::vector<std::vector<compiler::HostTensor>> runs;
  double compile_seconds = 0;
  double run_seconds = 0;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_PROGRAM_RUNS_H_
