#include "tools/exit_codes.h"

#include "gtest/gtest.h"

namespace rk::tools {
namespace {

TEST(ExitCodesTest, BadInputIsUsage) {
  for (const absl::Status& s :
       {absl::InvalidArgumentError("x"), absl::NotFoundError("x"), absl::AlreadyExistsError("x"),
        absl::FailedPreconditionError("x"), absl::OutOfRangeError("x"), absl::DataLossError("x"),
        absl::PermissionDeniedError("x"), absl::UnimplementedError("x")}) {
    EXPECT_EQ(ExitCodeForStatus(s), kExitUsage) << s;
  }
}

// An error is never "reproduces": only a verdict may say that.
TEST(ExitCodesTest, EnvironmentAndInternalErrorsCannotTest) {
  for (const absl::Status& s :
       {absl::UnavailableError("no GPU"), absl::ResourceExhaustedError("ENOSPC"),
        absl::InternalError("x"), absl::UnknownError("x"), absl::DeadlineExceededError("x"),
        absl::AbortedError("x"), absl::CancelledError("x")}) {
    EXPECT_EQ(ExitCodeForStatus(s), kExitCannotTest) << s;
  }
  EXPECT_EQ(ExitCodeForStatus(absl::OkStatus()), kExitOk);
}

}  // namespace
}  // namespace rk::tools
