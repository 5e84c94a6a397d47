// Early-return helpers for absl::Status / absl::StatusOr, shared by every
// layer so code that chains fallible steps reads as a short list of steps.
//
// Exercised throughout, e.g. by every pass test in compiler/passes/.
#ifndef REPROKIT_BASE_STATUS_MACROS_H_
#define REPROKIT_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <utility>

#define RK_STATUS_CONCAT_INNER(a, b) a##b
#define RK_STATUS_CONCAT(a, b) RK_STATUS_CONCAT_INNER(a, b)

// Returns the status of `expr` from the enclosing function if it is not OK.
#define RK_RETURN_IF_ERROR(expr)                  \
  do {                                            \
    ::absl::Status rk_status_ = (expr);           \
    if (!rk_status_.ok()) return rk_status_;      \
  } while (false)

// `lhs` = the value of the StatusOr `expr`, or returns its status.
#define RK_ASSIGN_OR_RETURN(lhs, expr) \
  RK_ASSIGN_OR_RETURN_IMPL(RK_STATUS_CONCAT(rk_statusor_, __LINE__), lhs, expr)
#define RK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = *std::move(tmp)

#endif  // REPROKIT_BASE_STATUS_MACROS_H_
