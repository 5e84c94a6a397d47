// Content store throughput: Put (hash + shuffle + zstd + atomic write) and
// verified Get of float32 blobs, random and smooth, with and without byte
// shuffle; the cost of storing a blob that is already there; and, for
// comparison in the same run, single-core SHA-256 and raw zstd levels 1 and 3.
//
//   bazel run -c opt //bench:store_bench -- [--store_bench_1gib] [benchmark flags]
//
// Sizes: 1, 16 and 256 MiB (1 GiB with --store_bench_1gib or
// REPROKIT_STORE_BENCH_1GIB=1). Counters: `ratio` = raw / stored bytes.
// The store lives under $TEST_TMPDIR or /tmp; results go to docs/BENCHMARKS.md.
// Put and Get rates are per wall-clock second (UseRealTime): zstd's worker
// threads for blobs >= 1 MiB and the waits on fsync are counted, as a user
// sees them. The raw SHA-256 and zstd rows are single-threaded CPU rates.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zstd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/sha256.h"
#include "repro/store/local_store.h"

namespace rk::repro {
namespace {

enum class Data { kRandom, kSmooth };

const char* DataName(Data data) { return data == Data::kRandom ? "random" : "smooth"; }

// float32 values: normally distributed noise (close to incompressible, as
// trained weights are) or a smooth signal (activations, iota-like inputs).
const std::string& Floats(size_t bytes, Data data) {
  static auto* cache = new std::map<std::pair<size_t, Data>, std::string>();
  std::string& blob = (*cache)[{bytes, data}];
  if (!blob.empty()) return blob;
  blob.resize(bytes);
  size_t count = bytes / sizeof(float);
  std::mt19937 random(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t i = 0; i < count; ++i) {
    float v = data == Data::kRandom ? normal(random)
                                    : static_cast<float>(std::sin(i * 1e-3) + i * 1e-7);
    std::memcpy(blob.data() + i * sizeof(float), &v, sizeof(float));
  }
  return blob;
}

std::unique_ptr<LocalStore> FreshStore() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string root = absl::StrCat(base != nullptr ? base : "/tmp", "/store_bench.", ::getpid());
  std::filesystem::remove_all(root);
  return std::move(*LocalStore::Open(root));
}

void CleanUp(LocalStore& store) { std::filesystem::remove_all(store.root()); }

void SetRatio(benchmark::State& state, LocalStore& store, const Digest& digest) {
  absl::StatusOr<ObjectInfo> info = store.Stat(digest);
  if (info.ok()) state.counters["ratio"] = double(info->raw_size) / info->stored_size;
}

void BM_StorePut(benchmark::State& state, size_t bytes, Data data, int element_size) {
  const std::string& blob = Floats(bytes, data);
  auto store = FreshStore();
  Digest digest;
  for (auto _ : state) {
    absl::StatusOr<Digest> d = store->Put(blob, PutOptions{.element_size = element_size});
    if (!d.ok()) {
      state.SkipWithError(std::string(d.status().message()).c_str());
      break;
    }
    digest = *d;
    state.PauseTiming();
    (void)store->Remove(digest);
    state.ResumeTiming();
  }
  (void)store->Put(blob, PutOptions{.element_size = element_size});
  SetRatio(state, *store, digest);
  state.SetBytesProcessed(state.iterations() * bytes);
  CleanUp(*store);
}

void BM_StoreGet(benchmark::State& state, size_t bytes, Data data, int element_size) {
  const std::string& blob = Floats(bytes, data);
  auto store = FreshStore();
  Digest digest = *store->Put(blob, PutOptions{.element_size = element_size});
  for (auto _ : state) {
    absl::StatusOr<std::string> back = store->Get(digest);
    if (!back.ok()) {
      state.SkipWithError(std::string(back.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(back->data());
  }
  SetRatio(state, *store, digest);
  state.SetBytesProcessed(state.iterations() * bytes);
  CleanUp(*store);
}

void BM_StorePutExisting(benchmark::State& state, size_t bytes) {
  const std::string& blob = Floats(bytes, Data::kRandom);
  auto store = FreshStore();
  (void)store->Put(blob);
  for (auto _ : state) benchmark::DoNotOptimize(store->Put(blob));
  state.SetBytesProcessed(state.iterations() * bytes);
  CleanUp(*store);
}

void BM_Sha256(benchmark::State& state, size_t bytes) {
  const std::string& blob = Floats(bytes, Data::kRandom);
  for (auto _ : state) benchmark::DoNotOptimize(Sha256(blob));
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_ZstdCompress(benchmark::State& state, size_t bytes, Data data, int level) {
  const std::string& blob = Floats(bytes, data);
  std::vector<char> out(ZSTD_compressBound(bytes));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  size_t compressed = 0;
  for (auto _ : state) {
    compressed = ZSTD_compressCCtx(cctx, out.data(), out.size(), blob.data(), blob.size(), level);
  }
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(compressed)) {
    state.SkipWithError(ZSTD_getErrorName(compressed));
    return;
  }
  state.counters["ratio"] = double(bytes) / compressed;
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_ZstdDecompress(benchmark::State& state, size_t bytes, Data data, int level) {
  const std::string& blob = Floats(bytes, data);
  std::vector<char> compressed(ZSTD_compressBound(bytes));
  compressed.resize(ZSTD_compress(compressed.data(), compressed.size(), blob.data(), blob.size(), level));
  std::string out(bytes, '\0');
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ZSTD_decompress(out.data(), out.size(), compressed.data(), compressed.size()));
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

std::string SizeName(size_t bytes) {
  return bytes >= (1u << 30) ? absl::StrCat(bytes >> 30, "GiB") : absl::StrCat(bytes >> 20, "MiB");
}

void RegisterAll(bool with_1gib) {
  std::vector<size_t> sizes = {1 << 20, 16 << 20, 256 << 20};
  if (with_1gib) sizes.push_back(size_t{1} << 30);
  for (size_t bytes : sizes) {
    for (Data data : {Data::kRandom, Data::kSmooth}) {
      for (int shuffle : {0, 4}) {
        std::string suffix = absl::StrCat(SizeName(bytes), "/", DataName(data),
                                          shuffle ? "/shuffle" : "/plain");
        benchmark::RegisterBenchmark(("StorePut/" + suffix).c_str(), BM_StorePut, bytes, data,
                                     shuffle)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark(("StoreGet/" + suffix).c_str(), BM_StoreGet, bytes, data,
                                     shuffle)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
    benchmark::RegisterBenchmark(("StorePutExisting/" + SizeName(bytes)).c_str(),
                                 BM_StorePutExisting, bytes)
        ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  }
  constexpr size_t kRaw = 16 << 20;
  benchmark::RegisterBenchmark("Sha256/16MiB", BM_Sha256, kRaw)->Unit(benchmark::kMillisecond);
  for (Data data : {Data::kRandom, Data::kSmooth}) {
    for (int level : {1, 3}) {
      std::string suffix = absl::StrCat("16MiB/", DataName(data), "/level", level);
      benchmark::RegisterBenchmark(("ZstdCompress/" + suffix).c_str(), BM_ZstdCompress, kRaw,
                                   data, level)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("ZstdDecompress/" + suffix).c_str(), BM_ZstdDecompress,
                                   kRaw, data, level)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace
}  // namespace rk::repro

int main(int argc, char** argv) {
  const char* env = std::getenv("REPROKIT_STORE_BENCH_1GIB");
  bool with_1gib = env != nullptr && std::string(env) == "1";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--store_bench_1gib") {
      with_1gib = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::AddCustomContext("zstd_workers",
                              rk::repro::ZstdHasWorkers() ? "yes" : "no (single-threaded zstd)");
  rk::repro::RegisterAll(with_1gib);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
