// Warming a backend process up: one small run request per device, so that
// the one-time costs of a backend's first compile on a device (creating a
// CUDA context, PyTorch Inductor's and Triton's first use: 2-3 s on an H200)
// are paid when a warm pool starts, not by the first requests of the command
// that uses it. The request is an elementwise graph with no backend options,
// in every form the backend asks for (ONNX through `to_onnx`); its result is
// not checked, only that the backend answered with one.
//
// Tested by repro/backend/backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_WARM_UP_H_
#define REPROKIT_REPRO_BACKEND_WARM_UP_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "compiler/ir/graph.h"
#include "repro/backend/backend_channel.h"

namespace rk::repro {

using GraphToOnnx = std::function<absl::StatusOr<std::string>(const compiler::Graph&)>;

// OK when the backend returned a result. FailedPrecondition when it does not
// declare `device` (or the ops and dtype of the warm-up graph), or asks for
// ONNX and `to_onnx` is null; Unavailable when it failed, timed out or died
// (the channel then tells by alive()).
absl::Status WarmUp(BackendChannel& channel, std::string_view device, absl::Duration timeout,
                    const GraphToOnnx& to_onnx = nullptr);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_WARM_UP_H_
