// What a fuzz harness does when a property that must hold does not: print
// what broke and abort, which libFuzzer records as a crash with its input.
// The same abort fails the corpus replay tests (fuzz_replay_main.cc).
#ifndef REPROKIT_TOOLS_FUZZERS_FUZZ_ASSERT_H_
#define REPROKIT_TOOLS_FUZZERS_FUZZ_ASSERT_H_

#include <cstdio>
#include <cstdlib>

#define RK_FUZZ_ASSERT(cond, ...)                                        \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: fuzz property broken: %s\n", __FILE__, \
                   __LINE__, #cond);                                     \
      std::fprintf(stderr, __VA_ARGS__);                                 \
      std::fprintf(stderr, "\n");                                        \
      std::abort();                                                      \
    }                                                                    \
  } while (0)

#endif  // REPROKIT_TOOLS_FUZZERS_FUZZ_ASSERT_H_
