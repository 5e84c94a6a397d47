#include "compiler/cpu/codegen/kernel_cache.h"

namespace rk::compiler::cpu {

KernelCache& KernelCache::Global() {
  // A few hundred kernels of a few KiB of code and key each.
  static KernelCache* cache = new KernelCache(1024);
  return *cache;
}

std::optional<KernelCache::Entry> KernelCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  order_.splice(order_.begin(), order_, it->second.position);
  return it->second.entry;
}

void KernelCache::Insert(const std::string& key, Entry entry) {
  if (capacity_ == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = slots_.try_emplace(key);
  it->second.entry = std::move(entry);
  if (inserted) {
    order_.push_front(&it->first);
  } else {
    order_.splice(order_.begin(), order_, it->second.position);
  }
  it->second.position = order_.begin();
  while (slots_.size() > capacity_) {
    auto oldest = slots_.find(*order_.back());
    order_.pop_back();
    slots_.erase(oldest);
  }
}

void KernelCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  slots_.clear();
  order_.clear();
}

size_t KernelCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return slots_.size();
}

int64_t KernelCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

int64_t KernelCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace rk::compiler::cpu
