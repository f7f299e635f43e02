// The coordinator's links to its workers as one set over one socket (LinkRouter): polling them
// all (one poll item whatever their number), heartbeats out, and the loss rule in (a worker
// silent for `lost_ns` is lost), all timed on the run's clock so that tests can step it
// (VirtualClock). Lives on the coordinator's control thread; the routing thread reaches it only
// through the RouteFeed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/coordinator/session/link_router.h"
#include "fleet/coordinator/session/worker_link.h"

namespace fleet::util {
class Clock;
}

namespace fleet::session {

class LinkSet {
 public:
  using Handler = std::function<void(WorkerLink&, const wire::Envelope&)>;

  LinkSet(util::Clock& clock, int64_t beat_ns, int64_t lost_ns)
      : clock_(clock), beat_ns_(beat_ns), lost_ns_(lost_ns) {}

  // The socket every link goes through; before the first add().
  void open(zmq::context_t& ctx, const security::CurveKeyPair* curve) {
    router_ = std::make_unique<LinkRouter>(ctx, curve);
  }
  LinkRouter& router() { return *router_; }
  // A routing id for the next link.
  std::string next_peer_id() const { return "w" + std::to_string(links_.size()); }
  void add(std::unique_ptr<WorkerLink> link) {
    by_peer_[link->peer_id()] = links_.size();
    links_.push_back(std::move(link));
  }
  size_t size() const { return links_.size(); }
  WorkerLink& operator[](size_t i) { return *links_[i]; }
  const WorkerLink& operator[](size_t i) const { return *links_[i]; }
  auto begin() { return links_.begin(); }
  auto end() { return links_.end(); }
  auto begin() const { return links_.begin(); }
  auto end() const { return links_.end(); }

  // Polls every unfinished link for up to `timeout_ms` (real time) and hands each message to
  // `handler`; every message, even an undecodable one, proves its sender alive.
  void poll(int timeout_ms, const Handler& handler);
  // Waits up to `timeout_ms` (real time) for a message on the router; true when one is waiting.
  bool wait(int timeout_ms);
  // The next waiting message of an unfinished link, decoded, its link marked heard (nullopt:
  // none waiting). Messages of finished links and of unknown peers are dropped.
  struct Received {
    WorkerLink* link;
    size_t index;  // in this set
    wire::Envelope env;
  };
  std::optional<Received> next();
  // Heartbeats out every beat; a running worker silent for longer than the loss budget is
  // marked lost (after reading what may be waiting for it). `handler` takes what is read.
  void tick(const Handler& handler);
  // The heartbeat alone, for the phases before the run (HELLO/WELCOME, the clock pings): a
  // worker counts the coordinator lost 3 beats after HELLO, and at 1,000 workers those phases
  // take longer than that (docs/scaling.md, "1,000 simulated workers").
  void beat();
  // While the run streams: the routing thread's queues, and its wake-up polled beside the
  // socket (null: nothing is routed here, the workers route themselves).
  void feed_from(RouteFeed* feed) { feed_ = feed; }
  // Sends queued batches while credit allows; true while some link has more batches waiting
  // than the feed holds (--max-pending-batches: the routing thread then blocks).
  bool pump(int credit_window);
  // The run is over: every batch still queued counts as sent to its link, never confirmed.
  void settle();
  void send_to_unfinished(const std::string& payload);
  bool any_lost() const;
  bool all_finished() const;

 private:
  void beat_at(int64_t now);  // `now`: the tick's one reading of the clock
  void check_silence(WorkerLink& l, int64_t now, const Handler& handler);
  void drain(const Handler& handler);

  util::Clock& clock_;
  const int64_t beat_ns_;
  const int64_t lost_ns_;
  int64_t last_beat_ns_ = 0;
  int64_t last_tick_ns_ = 0;
  RouteFeed* feed_ = nullptr;
  std::unique_ptr<LinkRouter> router_;  // outlives the links, which send through it
  std::vector<std::unique_ptr<WorkerLink>> links_;
  std::unordered_map<std::string, size_t> by_peer_;  // routing id -> index
};

}  // namespace fleet::session
