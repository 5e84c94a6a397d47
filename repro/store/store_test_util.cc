#include "repro/store/store_test_util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>

#include "absl/base/internal/raw_logging.h"
#include "base/file_util.h"

namespace rk::repro {

std::string MakeTestDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/" + name + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ABSL_RAW_LOG(FATAL, "mkdtemp %s", pattern.c_str());
  return pattern;
}

std::string RandomBytes(size_t size, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; i += 8) {
    uint64_t v = random();
    std::memcpy(bytes.data() + i, &v, std::min<size_t>(8, size - i));
  }
  return bytes;
}

std::string SmoothFloats(size_t count, uint64_t seed) {
  std::string bytes(count * sizeof(float), '\0');
  double phase = static_cast<double>(seed % 1000) / 10.0;
  for (size_t i = 0; i < count; ++i) {
    float v = static_cast<float>(std::sin(phase + i * 1e-3) * 3.0 + i * 1e-6);
    std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof(float));
  }
  return bytes;
}

std::string ReadFileOrDie(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) ABSL_RAW_LOG(FATAL, "%s", std::string(bytes.status().message()).c_str());
  return *std::move(bytes);
}

void WriteFileOrDie(const std::string& path, const std::string& bytes) {
  ::chmod(path.c_str(), 0644);  // store objects are read-only
  if (absl::Status s = WriteStringToFile(path, bytes); !s.ok()) {
    ABSL_RAW_LOG(FATAL, "%s", std::string(s.message()).c_str());
  }
}

}  // namespace rk::repro
