// Helpers shared by the store's tests: fresh directories and test blobs.
#ifndef REPROKIT_REPRO_STORE_STORE_TEST_UTIL_H_
#define REPROKIT_REPRO_STORE_STORE_TEST_UTIL_H_

#include <cstdint>
#include <string>

namespace rk::repro {

// A new empty directory under $TEST_TMPDIR (or /tmp).
std::string MakeTestDir(const std::string& name);
// `size` pseudo-random bytes from `seed`.
std::string RandomBytes(size_t size, uint64_t seed);
// `count` float32 values of a smooth signal (compressible after shuffling).
std::string SmoothFloats(size_t count, uint64_t seed);
std::string ReadFileOrDie(const std::string& path);
void WriteFileOrDie(const std::string& path, const std::string& bytes);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_STORE_TEST_UTIL_H_
