#include "repro/backend/channel_pool.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace rk::repro {

struct ChannelPool::State {
  Factory factory;
  std::mutex mutex;
  std::condition_variable available;
  std::vector<std::unique_ptr<BackendChannel>> idle;
  int free_slots = 0;  // slots with no channel, open or opening
  int busy = 0;
  int opened = 0;
  int opening = 0;  // Prestart threads still running the factory
  bool closed = false;
};

ChannelPool::ChannelPool(Factory factory, int size, std::unique_ptr<BackendChannel> first)
    : state_(std::make_shared<State>()) {
  state_->factory = std::move(factory);
  state_->free_slots = std::max(1, size);
  if (first != nullptr) {
    state_->idle.push_back(std::move(first));
    --state_->free_slots;
    ++state_->opened;
  }
}

ChannelPool::~ChannelPool() {
  std::vector<std::unique_ptr<BackendChannel>> idle;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
    idle.swap(state_->idle);
  }
  // Closed outside the lock: closing a process waits for it a moment.
}

void ChannelPool::Prestart() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  for (; state_->free_slots > 0; --state_->free_slots) {
    ++state_->opening;
    std::thread([state = state_] {
      absl::StatusOr<std::unique_ptr<BackendChannel>> channel = state->factory();
      std::unique_ptr<BackendChannel> drop;
      std::lock_guard<std::mutex> relock(state->mutex);
      --state->opening;
      if (channel.ok() && !state->closed) {
        state->idle.push_back(*std::move(channel));
        ++state->opened;
      } else {
        ++state->free_slots;
        if (channel.ok()) drop = *std::move(channel);
      }
      state->available.notify_one();
    }).detach();
  }
}

absl::StatusOr<std::unique_ptr<BackendChannel>> ChannelPool::Acquire() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  while (true) {
    s.available.wait(lock, [&] { return !s.idle.empty() || s.free_slots > 0; });
    if (!s.idle.empty()) {
      std::unique_ptr<BackendChannel> channel = std::move(s.idle.back());
      s.idle.pop_back();
      if (channel->alive()) {
        ++s.busy;
        return channel;
      }
      ++s.free_slots;  // a dead one: its slot is reopened below
      continue;
    }
    break;
  }
  --s.free_slots;
  ++s.busy;
  lock.unlock();
  absl::StatusOr<std::unique_ptr<BackendChannel>> opened = s.factory();
  lock.lock();
  if (opened.ok()) {
    ++s.opened;
  } else {
    ++s.free_slots;
    --s.busy;
    s.available.notify_one();
  }
  return opened;
}

void ChannelPool::Release(std::unique_ptr<BackendChannel> channel) {
  std::unique_ptr<BackendChannel> drop;
  std::lock_guard<std::mutex> lock(state_->mutex);
  --state_->busy;
  if (channel != nullptr && channel->alive() && !state_->closed) {
    state_->idle.push_back(std::move(channel));
  } else {
    ++state_->free_slots;
    drop = std::move(channel);
  }
  state_->available.notify_one();
}

ChannelPool::Counts ChannelPool::counts() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return {static_cast<int>(state_->idle.size()), state_->busy, state_->opened, state_->opening};
}

}  // namespace rk::repro
