#include "fleet/engine/event_loop.h"

#include <algorithm>
#include <limits>

namespace fleet::storage {

void EventLoop::schedule_at(int64_t t_ns, Fn fn) { heap_.push(Event{t_ns, seq_++, std::move(fn)}); }

void EventLoop::post(int64_t t_ns, Fn fn) {
  {
    std::lock_guard<std::mutex> g(inbox_mu_);
    inbox_.emplace_back(t_ns, std::move(fn));
  }
  if (wakeup_) wakeup_();
}

void EventLoop::drain_inbox() {
  std::vector<std::pair<int64_t, Fn>> items;
  {
    std::lock_guard<std::mutex> g(inbox_mu_);
    if (inbox_.empty()) return;
    items.swap(inbox_);
  }
  for (auto& [t, fn] : items) heap_.push(Event{t, seq_++, std::move(fn)});
}

size_t EventLoop::run_until(int64_t now_ns) {
  size_t ran = 0;
  for (;;) {
    drain_inbox();
    if (heap_.empty() || heap_.top().t > now_ns) break;
    Fn fn = std::move(const_cast<Event&>(heap_.top()).fn);
    event_time_ = std::max(event_time_, heap_.top().t);
    heap_.pop();
    in_event_ = true;
    fn();
    in_event_ = false;
    ++ran;
  }
  return ran;
}

int64_t EventLoop::next_event_ns() const {
  int64_t t = heap_.empty() ? std::numeric_limits<int64_t>::max() : heap_.top().t;
  std::lock_guard<std::mutex> g(inbox_mu_);
  for (const auto& [it, fn] : inbox_) t = std::min(t, it);
  return t;
}

int64_t EventLoop::next_scheduled_ns() const {
  return heap_.empty() ? std::numeric_limits<int64_t>::max() : heap_.top().t;
}

bool EventLoop::empty() const {
  std::lock_guard<std::mutex> g(inbox_mu_);
  return heap_.empty() && inbox_.empty();
}

}  // namespace fleet::storage
