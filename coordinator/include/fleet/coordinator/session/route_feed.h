// The hand-off between the coordinator's routing thread (reading the trace, routing, packing
// batches) and its control thread (the one socket: handshake, heartbeats, credit, PROGRESS,
// DONE, loss): one bounded queue of ready batches per link (docs/scaling.md, "Routing on its own
// thread"). The routing thread never touches a ZeroMQ socket; it pushes batches here and rings
// an eventfd that the control thread polls beside its ROUTER socket. The control thread moves
// batches to the socket when a link has credit and never waits on routing; the routing thread
// blocks when a link's queue is full (--max-pending-batches), so memory stays bounded by the
// credit window plus that queue whatever the workers' speed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fleet/wire/batch.h"

namespace fleet::session {

// One encoded batch and the trace offset of each of its records (kept by the link until the
// worker confirms them: a lost node's report says where it got to). Immutable once queued;
// shared by every link of a fan-out.
struct PackedBatch {
  wire::BatchMessage message;
  std::vector<uint64_t> offsets;
  uint64_t by_reference = 0;  // records in it that travel as references into the trace
};
using PackedBatchPtr = std::shared_ptr<const PackedBatch>;

class RouteFeed {
 public:
  RouteFeed(size_t links, size_t max_pending);
  ~RouteFeed();
  RouteFeed(const RouteFeed&) = delete;
  RouteFeed& operator=(const RouteFeed&) = delete;

  // --- The routing thread.
  // The link finished (lost, done, rejected): route nothing more to it.
  bool closed(size_t link) const { return closed_[link].load(std::memory_order_acquire); }
  void push(size_t link, PackedBatchPtr batch);
  // Blocks while some link holds more than max_pending batches (the control thread sends them
  // as credit comes back, or drops them when the link is lost); false: stop() was asked.
  bool wait_for_room();
  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }
  // Routing ended: the whole trace, a stop, or `error` (a trace read error, to end the run with).
  void finish(std::string error);

  // --- The control thread.
  int wake_fd() const { return wake_fd_; }  // readable when something above happened
  void clear_wake();                        // before looking at the queues, every pass
  // Up to `max` batches of `link`, oldest first; wakes the routing thread if that made room.
  std::vector<PackedBatchPtr> take(size_t link, size_t max);
  size_t queued(size_t link) const;
  bool blocked() const;  // some open link holds more than max_pending batches
  // Every batch still queued for `link` (now or later) is dropped; they come back so the link
  // keeps their offsets (records sent to a lost node, never confirmed).
  std::vector<PackedBatchPtr> close(size_t link);
  void stop();  // the run stops: the routing thread returns at its next record
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  std::string error() const;

 private:
  void ring();  // wake the control thread (one eventfd write until it clears the flag)

  const size_t max_pending_;
  mutable std::mutex mu_;
  std::condition_variable room_;
  std::vector<std::deque<PackedBatchPtr>> queues_;  // guarded by mu_
  size_t over_ = 0;  // links holding more than max_pending_ batches (guarded by mu_)
  std::unique_ptr<std::atomic<bool>[]> closed_;
  // Each queue's length, read without the lock: a pass over 1,000 links locks only the ones with
  // batches. Sequentially consistent with the wake flag: a push after clear_wake() is seen or
  // rings.
  std::unique_ptr<std::atomic<size_t>[]> sizes_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{false};
  std::string error_;  // guarded by mu_
  std::atomic<bool> rung_{false};
  int wake_fd_ = -1;
};

}  // namespace fleet::session
