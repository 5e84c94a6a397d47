#include "repro/isolate/job_limits.h"

#include <sys/resource.h>

namespace rk::repro {

void LiftAddressSpaceLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_AS, &limit);
}

}  // namespace rk::repro
