// Whether a compile plants a value fault (compiler/options/faults.h: an
// `<op>:accuracy` or `reduce_sum:drop_last` on an op the graph contains, or
// `fuse:wrong_index`) into the code it generates. Such a failure is a
// miscompile by construction, whatever the fp64 recompile shows: promoting the
// graph to f64 can remove the very code the fault sits in (a cast to f64
// becomes f64->f64 and is folded away).
//
// Tested by repro/oracle/planted_fault_test.cc and oracle_test.cc
// (PlantedCastFaultStaysAMiscompile).
#ifndef REPROKIT_REPRO_ORACLE_PLANTED_FAULT_H_
#define REPROKIT_REPRO_ORACLE_PLANTED_FAULT_H_

#include "compiler/ir/graph.h"
#include "compiler/options/compile_options.h"

namespace rk::repro {

bool PlantsValueFault(const compiler::Graph& graph, const compiler::CompileOptions& options);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_ORACLE_PLANTED_FAULT_H_
