// Recorded intermediates: the value of every node of one candidate, kept in
// a content store (repro/store) and read back lazily, one node at a time,
// through a bounded in-memory cache.
//
// Reductions that cut the graph (cut_head, probdd_nodes, the final
// single-removal check) turn a node into a new graph input holding its
// recorded value. They read only the values of the nodes a candidate cuts,
// so the engine records the whole candidate once (reference interpreter,
// fp64 for accuracy failures; RecordValues in rewrite.h) and hands the
// values here. The cache is write-back: the newest values (nearest the
// failure, what cut_head reads first) stay decoded up to the limits
// (`max_resident_values`, `max_resident_bytes`); every other value is put
// into the store as a blob (SHA-256 addressed, zstd, byte-shuffled by dtype)
// at once, and a resident value is put there when it is evicted. So memory
// stays bounded, and a graph whose values fit the cache never writes a file
// (one file per blob costs ~0.2-0.5 ms on a busy disk). Get(node) returns
// the value from the cache or loads, verifies and caches it, evicting the
// least recently used values.
//
// Errors: a blob that is missing, corrupt (the store checks every digest) or
// of the wrong size is an error naming the node, the digest and the store;
// the first such error is also kept in status(), so that the engine can stop
// the run and report it rather than take it for an invalid candidate.
//
// Thread-safe. Tested by minifier/recorded_values_test.cc (round trips,
// eviction, missing and corrupt blobs) and minifier/engine_test.cc (a
// 5,000-node run with a small cache; a run whose store loses its blobs).
#ifndef REPROKIT_MINIFIER_RECORDED_VALUES_H_
#define REPROKIT_MINIFIER_RECORDED_VALUES_H_

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/digest.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "repro/store/store.h"

namespace rk::minifier {

struct ValueCacheLimits {
  int64_t max_resident_values = 1024;
  int64_t max_resident_bytes = int64_t{256} << 20;
};

// Counters of a RecordedValues (summed over a run in MinifyStats).
struct ValueCacheCounters {
  int64_t recorded = 0;       // values recorded
  int64_t stored = 0;         // values put into the store (spilled)
  int64_t loads = 0;          // values read back from the store
  int64_t hits = 0;           // Get answered from the cache
  int64_t peak_resident = 0;  // most values held by the cache at once
};

class RecordedValues {
 public:
  // Takes `values` (one per node of `graph`, indexed by NodeId, in the
  // node's type; what RecordValues returns): the newest that fit the cache
  // stay resident, the others go into `store`, each tensor released as soon
  // as it is stored. `store` must outlive the result.
  static absl::StatusOr<std::unique_ptr<RecordedValues>> Put(
      const compiler::Graph& graph, std::vector<compiler::HostTensor> values,
      repro::Store& store, ValueCacheLimits limits = {});

  // The recorded value of node `id` (of the graph given to Put).
  absl::StatusOr<compiler::HostTensor> Get(compiler::NodeId id);

  int num_nodes() const { return static_cast<int>(digests_.size()); }
  // The SHA-256 of the value's bytes (its address once stored).
  const Digest& digest(compiler::NodeId id) const { return digests_[id.value]; }
  // Whether the value has been put into the store.
  bool stored(compiler::NodeId id) const;
  // The first error Get returned; OK if none.
  absl::Status status() const;
  // Values held by the cache now.
  int64_t resident() const;
  ValueCacheCounters counters() const;

 private:
  struct Entry {
    compiler::HostTensor value;
    std::list<int>::iterator lru;  // position in lru_
  };

  RecordedValues(repro::Store& store, ValueCacheLimits limits)
      : store_(store), limits_(limits) {}
  absl::StatusOr<compiler::HostTensor> Load(compiler::NodeId id) const;
  void Insert(int node, compiler::HostTensor value) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Full(int64_t extra_bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Store(int node, const compiler::HostTensor& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  repro::Store& store_;
  const ValueCacheLimits limits_;
  std::vector<Digest> digests_;
  std::vector<compiler::TensorType> types_;
  std::vector<std::string> names_;  // display names, for error messages

  mutable absl::Mutex mu_;
  absl::flat_hash_map<int, Entry> cache_ ABSL_GUARDED_BY(mu_);
  std::list<int> lru_ ABSL_GUARDED_BY(mu_);  // most recently used first
  int64_t resident_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  ValueCacheCounters counters_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> stored_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rk::minifier

#endif  // REPROKIT_MINIFIER_RECORDED_VALUES_H_
