#include "minifier/recorded_values.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace rk::minifier {

using compiler::HostTensor;
using compiler::NodeId;

absl::StatusOr<std::unique_ptr<RecordedValues>> RecordedValues::Put(
    const compiler::Graph& graph, std::vector<HostTensor> values, repro::Store& store,
    ValueCacheLimits limits) {
  if (values.size() != static_cast<size_t>(graph.num_nodes())) {
    return absl::InternalError(absl::StrCat("recorded ", values.size(), " values for ",
                                            graph.num_nodes(), " nodes"));
  }
  std::unique_ptr<RecordedValues> recorded(new RecordedValues(store, limits));
  recorded->digests_.resize(values.size());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    NodeId id(i);
    HostTensor value = std::move(values[i]);
    recorded->types_.push_back(graph.type(id));
    recorded->names_.push_back(graph.DisplayName(id));
    if (!value.valid() || value.type() != graph.type(id)) {
      return absl::InternalError(absl::StrCat("recorded value of node %", graph.DisplayName(id),
                                              " does not have the node's type ",
                                              graph.type(id).ToString()));
    }
    const auto* data = reinterpret_cast<const char*>(value.raw_data());
    repro::PutOptions options;
    options.element_size = compiler::DTypeSize(value.dtype());
    absl::StatusOr<repro::Digest> digest =
        store.Put(absl::string_view(data, static_cast<size_t>(value.byte_size())), options);
    if (!digest.ok()) {
      return absl::Status(digest.status().code(),
                          absl::StrCat("cannot store the recorded value of node %",
                                       graph.DisplayName(id), ": ",
                                       std::string(digest.status().message())));
    }
    recorded->digests_[i] = *digest;
  }
  recorded->counters_.recorded = graph.num_nodes();
  return recorded;
}

absl::StatusOr<HostTensor> RecordedValues::Load(NodeId id) const {
  const repro::Digest& digest = digests_[id.value];
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
  // The value just inserted stays even when it alone exceeds the byte limit:
  // the caller holds it anyway.
  while (cache_.size() > 1 &&
         (static_cast<int64_t>(cache_.size()) > limits_.max_resident_values ||
          resident_bytes_ > limits_.max_resident_bytes)) {
    auto victim = cache_.find(lru_.back());
    resident_bytes_ -= victim->second.value.byte_size();
    cache_.erase(victim);
    lru_.pop_back();
  }
  if (limits_.max_resident_values <= 0) {
    // A cache of size 0: nothing stays.
    resident_bytes_ = 0;
    cache_.clear();
    lru_.clear();
  }
  counters_.peak_resident =
      std::max(counters_.peak_resident, static_cast<int64_t>(cache_.size()));
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
