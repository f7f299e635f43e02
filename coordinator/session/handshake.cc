#include "handshake.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <filesystem>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/util/build_info.h"
#include "fleet/util/clock.h"
#include "fleet/wire/poll.h"

namespace fleet::session {

Result<TraceOffer> plan_trace_offer(const FleetOptions& o,
                                    const std::vector<WorkerAddress>& addresses) {
  TraceOffer offer;
  offer.offered.assign(addresses.size(), false);
  if (o.trace_access == TraceAccess::Stream) return offer;
  const bool shared = o.trace_access == TraceAccess::Shared;
  try {
    offer.identity = trace::identify_trace(o.replay.trace_path);
  } catch (const trace::TraceError& e) {
    if (shared) return Status::error(std::string("--trace-access shared: ") + e.what());
    spdlog::info("records travel in batches: {}", e.what());  // e.g. a trace read from a pipe
    return offer;
  }
  offer.path = o.worker_trace_path.empty()
                   ? std::filesystem::absolute(o.replay.trace_path).lexically_normal().string()
                   : o.worker_trace_path;
  for (size_t i = 0; i < addresses.size(); ++i) {
    offer.offered[i] = shared || o.local > 0 || is_loopback_host(addresses[i].host);
  }
  return offer;
}

Status apply_trace_offer(LinkSet& links, const TraceOffer& offer, bool required) {
  for (size_t i = 0; i < links.size(); ++i) {
    if (!offer.offered[i]) continue;
    WorkerLink& l = links[i];
    if (l.welcome().trace_shared) {
      l.use_shared_trace();
    } else if (required) {
      return Status::error(
          "worker " + l.address().name() +
          " cannot read the trace itself (--trace-access shared): " + l.welcome().trace_error);
    } else {
      spdlog::info("worker {}: records travel in batches (shared trace unavailable: {})",
                   l.address().name(), l.welcome().trace_error);
    }
  }
  return Status();
}

namespace {

void on_welcome(WorkerLink& l, const wire::Envelope& env, size_t& ready) {
  if (env.kind != wire::MessageType::Welcome || l.state() != WorkerLink::State::Connecting) return;
  if (env.version != wire::kProtocolVersion) {
    l.mark_rejected("worker speaks protocol version " + std::to_string(env.version) +
                    ", this coordinator speaks " + std::to_string(wire::kProtocolVersion));
    return;
  }
  auto w = env.as<wire::Welcome>();
  if (!w.reject.empty()) {
    l.mark_rejected(w.reject);
    return;
  }
  if (w.build_id != util::build_id()) {
    spdlog::warn("worker {} runs build {}, coordinator {}", l.address().name(), w.build_id,
                 util::build_id());
  }
  l.accept_welcome(std::move(w));
  ++ready;
}

}  // namespace

Status handshake(LinkSet& links, const TraceOffer& offer, int timeout_ms, util::Clock& clock) {
  wire::Hello h;
  h.build_id = util::build_id();
  h.run_id = std::to_string(getpid()) + "-" + std::to_string(clock.now_ns());
  const std::string plain = wire::encode(h);
  h.trace_path = offer.path;
  h.trace_size = offer.identity.size;
  h.trace_fingerprint = offer.identity.fingerprint;
  const std::string with_trace = wire::encode(h);
  for (size_t i = 0; i < links.size(); ++i) links[i].send(offer.offered[i] ? with_trace : plain);
  const int64_t deadline = clock.now_ns() + int64_t{timeout_ms} * 1'000'000;
  size_t ready = 0;
  while (ready < links.size() && clock.now_ns() < deadline) {
    links.poll(50, [&](WorkerLink& l, const wire::Envelope& env) { on_welcome(l, env, ready); });
    links.beat();
    for (auto& l : links) {
      l->retry_unsent();
      if (l->state() == WorkerLink::State::Rejected) {
        return Status::error("worker " + l->address().name() +
                             " refused the run: " + l->lost_reason());
      }
      if (l->state() != WorkerLink::State::Connecting) continue;
      if (Status s = l->handshake_status(); !s) return s;  // a refused or mismatched key
    }
  }
  for (auto& l : links) {
    if (l->state() == WorkerLink::State::Connecting) {
      return Status::error("worker " + l->address().name() + " did not answer within " +
                           std::to_string(timeout_ms) + " ms (--connect-timeout)");
    }
  }
  links.router().stop_monitoring();  // every handshake is done: nothing left to name
  return Status();
}

namespace {

// Workers pinged at once. One after another, N workers cost 8 x N round trips before T0 (about
// 4 s for 1,000 nodes at 0.5 ms); all at once, their pongs queue behind each other on the
// coordinator (and, for --local workers, for the CPU), which inflates the RTT the offset's
// error comes from: 64 local workers on 2 cores measured +/- 2.5 ms at once, +/- 0.07 ms one by
// one. Waves of 8 keep both small.
constexpr size_t kPingWave = 8;

// One ping to each worker of links[first, last) at once, then their pongs (within 1 s): each
// link keeps the estimate if this round trip is its shortest.
void ping_round(LinkSet& links, size_t first, size_t last, int seq, std::vector<int64_t>& best_rtt,
                util::Clock& clock) {
  const size_t n = last - first;
  std::vector<bool> answered(n, false);
  // When each ping left, kept here: a worker's echo of it is not trusted (an echo 300 s early
  // made every worker's T0 wait 600 s; one near INT64_MIN overflowed the round trip).
  std::vector<int64_t> sent(n, 0);
  size_t waiting = n;
  for (size_t i = first; i < last; ++i) {
    if (links[i].finished()) {  // lost already: nothing to wait for
      answered[i - first] = true;
      --waiting;
      continue;
    }
    wire::Ping p;
    p.seq = seq;
    p.coord_ns = sent[i - first] = clock.now_ns();
    links[i].send(wire::encode(p));
  }
  const int64_t deadline = clock.now_ns() + 1'000'000'000;
  while (waiting > 0 && clock.now_ns() < deadline) {
    links.beat();  // the workers outside this wave hear from us too
    if (!links.wait(20)) continue;
    // Every link's messages come through here; until START only pongs matter, and a
    // worker's heartbeat has proved it alive (LinkSet::next).
    while (auto r = links.next()) {
      if (r->env.kind != wire::MessageType::Pong) continue;
      const size_t i = r->index;
      if (i < first || i >= last) continue;
      const int64_t t1 = clock.now_ns();
      auto pong = r->env.as<wire::Pong>();
      if (pong.seq != seq || answered[i - first]) continue;
      const int64_t at = sent[i - first];
      const int64_t rtt = t1 - at;
      int64_t offset = 0;  // the worker's clock minus ours; a reading that overflows is no estimate
      if (rtt < best_rtt[i] && !__builtin_sub_overflow(pong.worker_ns, at + rtt / 2, &offset)) {
        best_rtt[i] = rtt;
        r->link->set_clock_estimate(offset, rtt / 2);
      }
      answered[i - first] = true;
      --waiting;
    }
  }
}

}  // namespace

void estimate_clocks(LinkSet& links, util::Clock& clock) {
  std::vector<int64_t> best_rtt(links.size(), INT64_MAX);
  for (size_t first = 0; first < links.size(); first += kPingWave) {
    const size_t last = std::min(links.size(), first + kPingWave);
    for (int seq = 0; seq < 8; ++seq) ping_round(links, first, last, seq, best_rtt, clock);
  }
}

}  // namespace fleet::session
