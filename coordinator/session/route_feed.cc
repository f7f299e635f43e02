#include "fleet/coordinator/session/route_feed.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace fleet::session {

RouteFeed::RouteFeed(size_t links, size_t max_pending)
    : max_pending_(max_pending),
      queues_(links),
      closed_(new std::atomic<bool>[links]),
      sizes_(new std::atomic<size_t>[links]),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  for (size_t i = 0; i < links; ++i) {
    closed_[i].store(false);
    sizes_[i].store(0);
  }
}

RouteFeed::~RouteFeed() { ::close(wake_fd_); }

void RouteFeed::ring() {
  if (rung_.exchange(true)) return;  // not yet seen: no need
  const uint64_t one = 1;
  [[maybe_unused]] const auto w = ::write(wake_fd_, &one, sizeof one);
}

// The flag is cleared before the queues are read: whatever is pushed after this rings again.
void RouteFeed::clear_wake() {
  rung_.store(false);
  uint64_t n;  // one read resets an eventfd's counter (EAGAIN when already zero)
  [[maybe_unused]] const auto r = ::read(wake_fd_, &n, sizeof n);
}

void RouteFeed::push(size_t link, PackedBatchPtr batch) {
  bool was_empty;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& q = queues_[link];
    was_empty = q.empty();
    q.push_back(std::move(batch));
    sizes_[link].store(q.size());
    // A closed link's batches wait only for close() to collect them: they never hold routing.
    if (q.size() == max_pending_ + 1 && !closed(link)) ++over_;
  }
  // A non-empty queue is the control thread's to send: it looks again on every credit.
  if (was_empty) ring();
}

bool RouteFeed::wait_for_room() {
  std::unique_lock<std::mutex> lock(mu_);
  room_.wait(lock, [&] { return over_ == 0 || stop_requested(); });
  return !stop_requested();
}

void RouteFeed::finish(std::string error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = std::move(error);
  }
  finished_.store(true, std::memory_order_release);
  ring();
}

std::vector<PackedBatchPtr> RouteFeed::take(size_t link, size_t max) {
  std::vector<PackedBatchPtr> out;
  if (sizes_[link].load() == 0) return out;
  bool made_room = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& q = queues_[link];
    const bool was_over = q.size() > max_pending_;
    while (!q.empty() && out.size() < max) {
      out.push_back(std::move(q.front()));
      q.pop_front();
    }
    sizes_[link].store(q.size());
    if (was_over && q.size() <= max_pending_ && !closed(link)) {
      --over_;
      made_room = over_ == 0;
    }
  }
  if (made_room) room_.notify_one();
  return out;
}

size_t RouteFeed::queued(size_t link) const { return sizes_[link].load(); }

bool RouteFeed::blocked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return over_ > 0;
}

std::vector<PackedBatchPtr> RouteFeed::close(size_t link) {
  std::vector<PackedBatchPtr> out;
  if (closed(link) && sizes_[link].load() == 0) return out;  // every pass, for a lost link
  bool made_room = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& q = queues_[link];
    if (!closed(link) && q.size() > max_pending_) {
      --over_;
      made_room = over_ == 0;
    }
    closed_[link].store(true, std::memory_order_release);
    out.assign(std::make_move_iterator(q.begin()), std::make_move_iterator(q.end()));
    q.clear();
    sizes_[link].store(0);
  }
  if (made_room) room_.notify_one();
  return out;
}

void RouteFeed::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);  // a waiter checks the flag under the lock
    stop_.store(true, std::memory_order_release);
  }
  room_.notify_all();
}

std::string RouteFeed::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace fleet::session
