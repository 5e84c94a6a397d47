// KernelCache: process-wide memory of JITed kernels, so recompiling a kernel
// whose LLVM IR was already compiled (the minimizer and fuzzer compile
// thousands of graphs that share most of their kernels) costs a lookup
// instead of optimization, code generation and linking.
//
// The key is host_compiler.cc's: the optimization level, every codegen
// option and the kernel's canonical kernel IR (compiler/kernel/kernel_key.h,
// faults included), compared in full, so two kernels that lower to different
// code never share an entry. Entries are evicted least recently used past `capacity`;
// an entry owns a reference to its machine code, and every Executable using
// the code holds its own, so eviction never frees code still in use. All
// methods are thread-safe.
//
// Tested by compiler/cpu/codegen/kernel_cache_test.cc.
#ifndef REPROKIT_COMPILER_CPU_CODEGEN_KERNEL_CACHE_H_
#define REPROKIT_COMPILER_CPU_CODEGEN_KERNEL_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace rk::compiler::cpu {

class KernelCache {
 public:
  struct Entry {
    void* fn = nullptr;                  // the kernel's entry point
    std::shared_ptr<const void> owner;   // keeps the code behind `fn` alive
  };

  explicit KernelCache(size_t capacity) : capacity_(capacity) {}

  // The process-wide cache the compiler uses.
  static KernelCache& Global();

  std::optional<Entry> Lookup(const std::string& key);
  // Replaces any entry already under `key`.
  void Insert(const std::string& key, Entry entry);
  void Clear();

  size_t size() const;
  int64_t hits() const;
  int64_t misses() const;

 private:
  using Order = std::list<const std::string*>;  // most recent first
  struct Slot {
    Entry entry;
    Order::iterator position;
  };

  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Slot> slots_;
  Order order_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace rk::compiler::cpu

#endif  // REPROKIT_COMPILER_CPU_CODEGEN_KERNEL_CACHE_H_
