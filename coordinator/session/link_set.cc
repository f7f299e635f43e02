#include "link_set.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "fleet/util/clock.h"
#include "fleet/wire/poll.h"

namespace fleet::session {

void LinkSet::poll(int timeout_ms, const Handler& handler) {
  std::vector<zmq::pollitem_t> items;
  std::vector<WorkerLink*> owners;
  for (auto& l : links_) {
    if (l->finished()) continue;
    items.push_back({l->socket().handle(), 0, ZMQ_POLLIN, 0});
    owners.push_back(l.get());
  }
  if (items.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return;
  }
  wire::poll_sockets(items.data(), items.size(), std::chrono::milliseconds(timeout_ms));
  for (size_t i = 0; i < items.size(); ++i) {
    if (!(items[i].revents & ZMQ_POLLIN)) continue;
    while (auto env = owners[i]->receive_one()) {
      owners[i]->heard(clock_.now_ns());
      if (env->type.empty()) continue;
      handler(*owners[i], *env);
    }
  }
}

void LinkSet::tick(const Handler& handler) {
  const int64_t now = clock_.now_ns();
  if (last_tick_ns_ != 0 && now - last_tick_ns_ > 2 * beat_ns_) {
    spdlog::warn("the coordinator's own loop stalled for {} ms (an overloaded host?)",
                 (now - last_tick_ns_) / 1'000'000);
  }
  last_tick_ns_ = now;
  beat();
  for (auto& l : links_) {
    if (l->finished() || l->state() == WorkerLink::State::Connecting) continue;
    if (now - l->last_heard_ns() > lost_ns_) check_silence(*l, handler);
  }
}

void LinkSet::beat() {
  const int64_t now = clock_.now_ns();
  if (now - last_beat_ns_ < beat_ns_) return;
  last_beat_ns_ = now;
  send_to_unfinished(wire::encode(wire::Heartbeat{}));
}

// Silence is measured by what this loop has read: when the loop itself was slow (a long DONE
// decode, a stalled VM), the worker's messages may be waiting in the socket. Read them before
// declaring it lost.
void LinkSet::check_silence(WorkerLink& l, const Handler& handler) {
  while (auto env = l.receive_one()) {
    l.heard(clock_.now_ns());
    if (!env->type.empty()) handler(l, *env);
  }
  const int64_t now = clock_.now_ns();
  if (l.finished() || now - l.last_heard_ns() <= lost_ns_) return;
  const int64_t silent_ms = (now - l.last_heard_ns()) / 1'000'000;
  spdlog::error("worker {} silent for {} ms: lost", l.address().name(), silent_ms);
  l.mark_unresponsive("no heartbeat for " + std::to_string(silent_ms) + " ms");
}

bool LinkSet::pump(int credit_window, int max_pending) {
  bool blocked = false;
  for (auto& l : links_) {
    l->pump(credit_window);
    if (l->queued_batches() > static_cast<size_t>(max_pending)) blocked = true;
  }
  return blocked;
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
