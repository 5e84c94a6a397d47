#include "minifier/recorded_values.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/sha256.h"

namespace rk::minifier {

using compiler::HostTensor;
using compiler::NodeId;

namespace {

absl::string_view BytesOf(const HostTensor& value) {
  return absl::string_view(reinterpret_cast<const char*>(value.raw_data()),
                           static_cast<size_t>(value.byte_size()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordedValues>> RecordedValues::Put(
    const compiler::Graph& graph, std::vector<HostTensor> values, repro::Store& store,
    ValueCacheLimits limits) {
  const int n = graph.num_nodes();
  if (values.size() != static_cast<size_t>(n)) {
    return absl::InternalError(
        absl::StrCat("recorded ", values.size(), " values for ", n, " nodes"));
  }
  std::unique_ptr<RecordedValues> recorded(new RecordedValues(store, limits));
  recorded->digests_.resize(n);
  for (int i = 0; i < n; ++i) {
    NodeId id(i);
    recorded->types_.push_back(graph.type(id));
    recorded->names_.push_back(graph.DisplayName(id));
    if (!values[i].valid() || values[i].type() != graph.type(id)) {
      return absl::InternalError(absl::StrCat("recorded value of node %", graph.DisplayName(id),
                                              " does not have the node's type ",
                                              graph.type(id).ToString()));
    }
  }
  absl::MutexLock lock(&recorded->mu_);
  recorded->stored_.assign(n, false);
  recorded->counters_.recorded = n;
  // Newest first: those stay resident while they fit.
  bool spilling = false;
  for (int i = n - 1; i >= 0; --i) {
    HostTensor value = std::move(values[i]);
    recorded->digests_[i] = Sha256(BytesOf(value));
    spilling = spilling || recorded->Full(value.byte_size());
    if (!spilling) {
      recorded->Insert(i, std::move(value));
      continue;
    }
    if (absl::Status s = recorded->Store(i, value); !s.ok()) return s;
  }
  return recorded;
}

bool RecordedValues::Full(int64_t extra_bytes) const {
  return static_cast<int64_t>(cache_.size()) + 1 > limits_.max_resident_values ||
         resident_bytes_ + extra_bytes > limits_.max_resident_bytes;
}

absl::Status RecordedValues::Store(int node, const HostTensor& value) {
  repro::PutOptions options;
  options.element_size = compiler::DTypeSize(value.dtype());
  absl::StatusOr<Digest> digest = store_.Put(BytesOf(value), options);
  if (!digest.ok()) {
    return absl::Status(digest.status().code(),
                        absl::StrCat("cannot store the recorded value of node %", names_[node],
                                     ": ", std::string(digest.status().message())));
  }
  if (*digest != digests_[node]) {
    return absl::InternalError(absl::StrCat("the store returned another digest for node %",
                                            names_[node]));
  }
  stored_[node] = true;
  ++counters_.stored;
  return absl::OkStatus();
}

absl::StatusOr<HostTensor> RecordedValues::Load(NodeId id) const {
  const Digest& digest = digests_[id.value];
  auto describe = [&](absl::StatusCode code, const std::string& why) {
    return absl::Status(code, absl::StrCat("recorded value of node %", names_[id.value], " (",
                                           types_[id.value].ToString(), ", sha256 ",
                                           digest.Hex(), ") is unusable: ", why));
  };
  absl::StatusOr<std::string> bytes = store_.Get(digest);
  if (!bytes.ok()) {
    return describe(bytes.status().code(), std::string(bytes.status().message()));
  }
  absl::StatusOr<HostTensor> value = HostTensor::FromBytes(
      types_[id.value],
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
  if (!value.ok()) {
    return describe(absl::StatusCode::kDataLoss,
                    absl::StrCat("the blob holds ", bytes->size(), " bytes, the type needs ",
                                 types_[id.value].byte_size()));
  }
  return value;
}

absl::StatusOr<HostTensor> RecordedValues::Get(NodeId id) {
  if (id.value < 0 || id.value >= num_nodes()) {
    return absl::InternalError(absl::StrCat("no recorded value for node ", id.value));
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(id.value);
    if (it != cache_.end()) {
      ++counters_.hits;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      return it->second.value;
    }
    if (!stored_[id.value]) {
      // Its spill failed when it was evicted; status_ holds why.
      return status_.ok() ? absl::InternalError(absl::StrCat("recorded value of node %",
                                                             names_[id.value], " was lost"))
                          : status_;
    }
  }
  // Loaded outside the lock: decompression is the slow part.
  absl::StatusOr<HostTensor> value = Load(id);
  absl::MutexLock lock(&mu_);
  ++counters_.loads;
  if (!value.ok()) {
    if (status_.ok()) status_ = value.status();
    return value.status();
  }
  if (!cache_.contains(id.value)) Insert(id.value, *value);
  return value;
}

void RecordedValues::Insert(int node, HostTensor value) {
  resident_bytes_ += value.byte_size();
  lru_.push_front(node);
  cache_.emplace(node, Entry{std::move(value), lru_.begin()});
  // The value just inserted stays even when it alone exceeds a limit: the
  // caller holds it anyway.
  while (cache_.size() > 1 &&
         (static_cast<int64_t>(cache_.size()) > limits_.max_resident_values ||
          resident_bytes_ > limits_.max_resident_bytes)) {
    auto victim = cache_.find(lru_.back());
    if (!stored_[victim->first]) {
      absl::Status s = Store(victim->first, victim->second.value);
      if (!s.ok() && status_.ok()) status_ = s;
    }
    resident_bytes_ -= victim->second.value.byte_size();
    cache_.erase(victim);
    lru_.pop_back();
  }
  counters_.peak_resident =
      std::max(counters_.peak_resident, static_cast<int64_t>(cache_.size()));
}

bool RecordedValues::stored(NodeId id) const {
  absl::MutexLock lock(&mu_);
  return stored_[id.value];
}

absl::Status RecordedValues::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

int64_t RecordedValues::resident() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(cache_.size());
}

ValueCacheCounters RecordedValues::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

}  // namespace rk::minifier
