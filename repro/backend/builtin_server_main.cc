// A test binary: the built-in compiler served through the backend protocol,
// as `reprokit backend-serve` does, for the protocol tests of repro/.
#include <cstdio>

#include "repro/backend/builtin_server.h"

int main() {
  absl::Status served = rk::repro::ServeBuiltinBackend(0, 1);
  if (!served.ok()) {
    std::fprintf(stderr, "builtin_server_main: %s\n", served.ToString().c_str());
    return 2;
  }
  return 0;
}
