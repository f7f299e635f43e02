// The engine's discrete-event core: timers ordered by (time on the engine Clock, insertion
// order), plus a thread-safe inbox for completions posted by real I/O threads. Everything the
// engine does in the background (eviction ticks, controller steps, L2 completions) is an event
// here, so a virtual clock makes a run fully deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <vector>

#include "fleet/util/clock.h"

namespace fleet::storage {

class EventLoop {
 public:
  using Fn = std::function<void()>;

  explicit EventLoop(util::Clock& clock) : clock_(clock) {}
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  util::Clock& clock() const { return clock_; }
  // Engine time: under a virtual clock, the scheduled time of the event being run (so work an
  // event triggers is stamped when it logically happens, not when run_until was called);
  // otherwise the clock. The clock is asked first: a real-clock engine's adapter threads (the
  // fs adapter's pool) read the time without the engine mutex, and must not read in_event_,
  // which the engine thread writes under it (TSan: FsAdapter.RealThreadsAndRelativeTmpDir).
  int64_t now_ns() const {
    return clock_.is_virtual() && in_event_ ? event_time_ : clock_.now_ns();
  }

  // Engine thread only (the caller holds the engine mutex). Wakes no one: the engine decides
  // once it has released its mutex (StorageManager::CallLock), against next_scheduled_ns().
  void schedule_at(int64_t t_ns, Fn fn);
  // Any thread.
  void post(int64_t t_ns, Fn fn);
  // Called (without the engine mutex) whenever post() adds work; the real-clock driver wakes up.
  void set_wakeup(std::function<void()> w) { wakeup_ = std::move(w); }

  // Runs every event due at or before now_ns, including ones scheduled while running. Returns
  // how many ran.
  size_t run_until(int64_t now_ns);
  int64_t next_event_ns() const;
  // The first scheduled event's instant, INT64_MAX when none (engine thread: the inbox, which
  // post() wakes the driver for, is not looked at).
  int64_t next_scheduled_ns() const;
  bool empty() const;

 private:
  struct Event {
    int64_t t;
    uint64_t seq;
    Fn fn;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.t != b.t ? a.t > b.t : a.seq > b.seq;
    }
  };
  void drain_inbox();

  util::Clock& clock_;
  bool in_event_ = false;
  int64_t event_time_ = 0;
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t seq_ = 0;
  mutable std::mutex inbox_mu_;
  std::vector<std::pair<int64_t, Fn>> inbox_;
  std::function<void()> wakeup_;
};

// A Clock view of the loop's engine time, handed to the L1 model and the adapters.
class LoopClock final : public util::Clock {
 public:
  explicit LoopClock(const EventLoop& loop) : loop_(loop) {}
  int64_t now_ns() const override { return loop_.now_ns(); }
  void sleep_until(int64_t deadline_ns) override { loop_.clock().sleep_until(deadline_ns); }
  bool is_virtual() const override { return loop_.clock().is_virtual(); }

 private:
  const EventLoop& loop_;
};

}  // namespace fleet::storage
