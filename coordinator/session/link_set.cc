#include "link_set.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "fleet/util/clock.h"
#include "fleet/wire/poll.h"

namespace fleet::session {

void LinkSet::poll(int timeout_ms, const Handler& handler) {
  if (all_finished()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return;
  }
  if (wait(timeout_ms)) drain(handler);
}

bool LinkSet::wait(int timeout_ms) {
  zmq::pollitem_t items[2] = {{router_->socket().handle(), 0, ZMQ_POLLIN, 0},
                              {nullptr, feed_ ? feed_->wake_fd() : -1, ZMQ_POLLIN, 0}};
  // The routing thread's wake-up ends the wait too: a batch is ready, or routing ended.
  wire::poll_sockets(items, feed_ ? 2 : 1, std::chrono::milliseconds(timeout_ms));
  return (items[0].revents & ZMQ_POLLIN) != 0;
}

std::optional<LinkSet::Received> LinkSet::next() {
  while (auto in = router_->receive()) {
    const auto it = by_peer_.find(in->peer);
    if (it == by_peer_.end() || links_[it->second]->finished()) continue;
    WorkerLink& l = *links_[it->second];
    wire::Envelope env = l.accept(std::move(in->payload));
    l.heard(clock_.now_ns());
    return Received{&l, it->second, std::move(env)};
  }
  return std::nullopt;
}

void LinkSet::drain(const Handler& handler) {
  while (auto r = next()) {
    if (!r->env.type.empty()) handler(*r->link, r->env);
  }
}

void LinkSet::tick(const Handler& handler) {
  const int64_t now = clock_.now_ns();
  if (last_tick_ns_ != 0 && now - last_tick_ns_ > 2 * beat_ns_) {
    spdlog::warn("the coordinator's own loop stalled for {} ms (an overloaded host?)",
                 (now - last_tick_ns_) / 1'000'000);
  }
  last_tick_ns_ = now;
  // One reading serves the beat and the silence checks: a worker is judged at the instant the
  // heartbeats went out, so the silence reported is the one this tick saw.
  beat_at(now);
  for (auto& l : links_) {
    if (l->finished() || l->state() == WorkerLink::State::Connecting) continue;
    if (now - l->last_heard_ns() > lost_ns_) check_silence(*l, now, handler);
  }
}

void LinkSet::beat() { beat_at(clock_.now_ns()); }

void LinkSet::beat_at(int64_t now) {
  if (now - last_beat_ns_ < beat_ns_) return;
  last_beat_ns_ = now;
  send_to_unfinished(wire::encode(wire::Heartbeat{}));
}

// Silence is measured by what this loop has read: when the loop itself was slow (a long DONE
// decode, a stalled VM), the worker's messages may be waiting in the socket. Read them before
// declaring it lost.
void LinkSet::check_silence(WorkerLink& l, int64_t now, const Handler& handler) {
  drain(handler);
  if (l.finished() || now - l.last_heard_ns() <= lost_ns_) return;
  const int64_t silent_ms = (now - l.last_heard_ns()) / 1'000'000;
  spdlog::error("worker {} silent for {} ms: lost", l.address().name(), silent_ms);
  l.mark_unresponsive("no heartbeat for " + std::to_string(silent_ms) + " ms");
}

bool LinkSet::pump(int credit_window) {
  if (feed_) feed_->clear_wake();  // what is pushed from here on rings again
  for (size_t i = 0; i < links_.size(); ++i) links_[i]->pump(feed_, i, credit_window);
  return feed_ && feed_->blocked();
}

void LinkSet::settle() {
  if (!feed_) return;
  for (size_t i = 0; i < links_.size(); ++i) links_[i]->settle(*feed_, i);
}

void LinkSet::send_to_unfinished(const std::string& payload) {
  for (auto& l : links_)
    if (!l->finished()) l->send(payload);
}

bool LinkSet::any_lost() const {
  return std::any_of(links_.begin(), links_.end(),
                     [](const auto& l) { return l->state() == WorkerLink::State::Lost; });
}

bool LinkSet::all_finished() const {
  return std::all_of(links_.begin(), links_.end(), [](const auto& l) { return l->finished(); });
}

}  // namespace fleet::session
