// DiskKernelCache: compiled kernels on disk, shared by every process of one
// user (minifier workers, fuzz shards, repeated `reprokit` runs), so a kernel
// compiled once is loaded, not optimized and code-generated, the next time any
// process needs it: the CPU backend's ELF objects (cpu/codegen/host_compiler.h)
// and the CUDA backend's PTX modules (cuda/codegen/ptx_compiler.h), each under
// keys of its own.
//
// An entry is one file `<dir>/<key>.o` (key: 64 hex characters, a SHA-256 the
// backend computes from the kernel's IR, its pipeline and target and the LLVM
// and reprokit versions). The file holds a header (magic, format version, the
// key, the bytes' size and SHA-256) and the bytes. It is written to a
// temporary file beside it and renamed into place, so readers and concurrent
// writers of the same key see a
// whole entry or none; a torn, truncated or otherwise corrupt file fails the
// checksum and reads as a miss (counted), and the recompiled object replaces
// it. The cache is a cache: a failed write is counted, never an error.
//
// Size: after writes, the files' total is estimated (one directory scan per
// process, then this process's writes added); past `max_bytes` the least
// recently used entries (by mtime; a hit touches its file) are removed down to
// 3/4 of it. Other processes' writes are seen at the next scan, so the bound
// is approximate by what processes write between scans.
//
// Where: $REPROKIT_KERNEL_CACHE (a directory, or "off"), else
// $XDG_CACHE_HOME/reprokit/kernels, else ~/.cache/reprokit/kernels;
// $REPROKIT_KERNEL_CACHE_MAX_MB bounds it (default 256).
//
// Tested by compiler/support/disk_kernel_cache_test.cc (hit and miss,
// corrupt files, two processes writing the same keys, eviction) and
// compiler/cpu/codegen/host_compiler_test.cc (through the compiler).
#ifndef REPROKIT_COMPILER_SUPPORT_DISK_KERNEL_CACHE_H_
#define REPROKIT_COMPILER_SUPPORT_DISK_KERNEL_CACHE_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace rk::compiler {

class DiskKernelCache {
 public:
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{256} << 20;

  DiskKernelCache(std::string dir, uint64_t max_bytes);

  // The cache the compiler uses, from the environment (header comment);
  // nullptr when it is off or no directory can be named.
  static DiskKernelCache* Global();
  // The directory the environment names (header comment); "" when the cache
  // is off or no directory can be named.
  static std::string DirFromEnvironment();

  const std::string& dir() const { return dir_; }

  // The object stored under `key` when a valid entry exists.
  std::optional<std::string> Load(std::string_view key);
  // Stores `object` under `key` (atomically replacing any entry), then evicts
  // if the cache has grown past its bound. Failures are counted only.
  void Store(std::string_view key, std::string_view object);

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  int64_t corrupt() const { return corrupt_; }  // entries that failed their checks
  int64_t write_failures() const { return write_failures_; }
  int64_t evicted() const { return evicted_; }

 private:
  std::string PathOf(std::string_view key) const;
  void EvictIfOver(uint64_t written);

  const std::string dir_;
  const uint64_t max_bytes_;
  std::mutex mu_;                // guards the estimate and eviction
  bool scanned_ = false;
  uint64_t estimated_bytes_ = 0;
  std::atomic<int64_t> hits_{0}, misses_{0}, corrupt_{0}, write_failures_{0}, evicted_{0};
};

}  // namespace rk::compiler

#endif  // REPROKIT_COMPILER_SUPPORT_DISK_KERNEL_CACHE_H_
