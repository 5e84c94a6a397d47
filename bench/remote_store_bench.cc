// Remote store throughput on loopback vs the local store: Put and Get of
// 1 MiB and 64 MiB blobs of random float32 data through HttpStore against a
// throwaway nginx (repro/store/testdata/nginx_server.sh) and through
// LocalStore (zstd level 3, fsync). Every Put stores a new blob (its first
// bytes are a counter), so none is skipped as present. Prints median MiB/s
// per wall-clock second. docs/BENCHMARKS.md, "Remote store".
//
//   bazel run -c opt //bench:remote_store_bench
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "repro/store/http_store.h"
#include "repro/store/http_test_util.h"
#include "repro/store/local_store.h"

namespace rk::repro {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Rates {
  double put = 0;
  double get = 0;
};

Rates Measure(Store& store, size_t bytes, int reps) {
  std::string blob(bytes, '\0');
  std::mt19937 random(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    float v = normal(random);
    std::memcpy(blob.data() + i, &v, 4);
  }
  static uint64_t counter = 0;
  std::vector<double> puts, gets;
  const double mib = static_cast<double>(bytes) / (1 << 20);
  for (int r = 0; r < reps; ++r) {
    ++counter;
    std::memcpy(blob.data(), &counter, sizeof(counter));
    double t0 = Now();
    absl::StatusOr<Digest> d = store.Put(blob, PutOptions{.element_size = 4});
    double t1 = Now();
    if (!d.ok()) {
      std::fprintf(stderr, "put: %s\n", std::string(d.status().message()).c_str());
      std::exit(1);
    }
    absl::StatusOr<std::string> got = store.Get(*d);
    double t2 = Now();
    if (!got.ok() || got->size() != bytes) {
      std::fprintf(stderr, "get failed\n");
      std::exit(1);
    }
    puts.push_back(mib / (t1 - t0));
    gets.push_back(mib / (t2 - t1));
  }
  return {Median(puts), Median(gets)};
}

int Main() {
  const std::string dir = absl::StrCat("/tmp/remote_store_bench.", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  absl::StatusOr<NginxServer> server = NginxServer::Start(dir + "/nginx");
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  HttpStoreOptions options;
  options.use_netrc = false;
  auto remote = std::move(*HttpStore::Open(server->url() + "/bench", options));
  auto local = std::move(*LocalStore::Open(dir + "/local"));
  std::printf("| blob | remote Put MiB/s | remote Get MiB/s | local Put MiB/s | local Get MiB/s |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (auto [bytes, reps] : {std::pair<size_t, int>{1 << 20, 21}, {size_t{64} << 20, 5}}) {
    Rates r = Measure(*remote, bytes, reps);
    Rates l = Measure(*local, bytes, reps);
    std::printf("| %zu MiB | %.0f | %.0f | %.0f | %.0f |\n", bytes >> 20, r.put, r.get, l.put,
                l.get);
    std::fflush(stdout);
  }
  server->Stop();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace rk::repro

int main() { return rk::repro::Main(); }
