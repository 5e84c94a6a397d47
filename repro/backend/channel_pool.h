// Up to N channels to one backend (backend_channel.h), handed out one per
// concurrent request: an idle one when there is one, else a new one opened by
// the factory, else a wait. A channel that is no longer alive after a request
// (its process crashed or timed out) is dropped and its slot reopened on the
// next request. Prestart() opens the free slots in the background, so that
// `-j N` does not pay a backend's start-up N times in a row on the critical
// path; a pool destroyed before they finish leaves them to close themselves.
//
// Tested by repro/backend/backend_pool_test.cc.
#ifndef REPROKIT_REPRO_BACKEND_CHANNEL_POOL_H_
#define REPROKIT_REPRO_BACKEND_CHANNEL_POOL_H_

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "repro/backend/backend_channel.h"

namespace rk::repro {

class ChannelPool {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<BackendChannel>>()>;

  // `first` (already open, e.g. the one whose hello was read) is idle.
  ChannelPool(Factory factory, int size, std::unique_ptr<BackendChannel> first = nullptr);
  ~ChannelPool();
  ChannelPool(const ChannelPool&) = delete;
  ChannelPool& operator=(const ChannelPool&) = delete;

  // Opens every free slot on a thread of its own; failures are forgotten
  // (the slot is opened again, with its error, on demand).
  void Prestart();

  absl::StatusOr<std::unique_ptr<BackendChannel>> Acquire();
  void Release(std::unique_ptr<BackendChannel> channel);

  struct Counts {
    int idle = 0;
    int busy = 0;
    int opened = 0;  // channels opened in all
    int opening = 0;  // slots Prestart is still opening
  };
  Counts counts() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BACKEND_CHANNEL_POOL_H_
