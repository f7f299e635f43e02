// The coordinator's end of one worker connection: its routing id on the coordinator's one
// socket (LinkRouter), the handshake and clock estimate, credit-based flow control with a bounded
// queue of batches waiting for credit (RouteFeed, filled by the routing thread), and the worker's
// liveness, progress and final result. Every link lives on the coordinator's control thread (ZeroMQ
// sockets are not shared across threads).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <zmq.hpp>

#include "fleet/coordinator/session/link_router.h"
#include "fleet/coordinator/session/route_feed.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "fleet/util/status.h"
#include "fleet/wire/batch.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet::session {

class WorkerLink {
 public:
  enum class State { Connecting, Ready, Running, Done, Lost, Rejected };

  // Connects through `router` (CURVE when the router has a key pair: the worker is then
  // authenticated by address.server_key) as `identity`; `peer` is the link's routing id.
  // `own_fingerprint`: the coordinator's key, named when a worker refuses it ("" = plaintext).
  WorkerLink(LinkRouter& router, WorkerAddress address, const std::string& identity,
             std::string peer, std::string own_fingerprint = {});
  ~WorkerLink();
  WorkerLink(const WorkerLink&) = delete;
  WorkerLink& operator=(const WorkerLink&) = delete;

  const WorkerAddress& address() const { return address_; }
  const std::string& peer_id() const { return peer_; }
  State state() const { return state_; }
  bool finished() const {
    return state_ == State::Done || state_ == State::Lost || state_ == State::Rejected;
  }

  // Handed to ZeroMQ without a copy, never blocking. Before WELCOME a message the socket cannot
  // take yet is kept for retry_unsent(); afterwards the link is lost (its pipe is gone).
  void send(std::string payload);
  void retry_unsent();
  // The link's last message: kept up to 1 s after the link is closed so that it is delivered.
  void send_last(std::string payload);
  // A message the router received from this link's peer; one that does not decode comes back
  // with an empty `type` (it still proves the worker alive) after a warning.
  wire::Envelope accept(zmq::message_t message);
  void handle(const wire::Envelope& env);  // ready, credit, progress, done, abort; others ignored

  // The worker mapped the trace and verified it (HELLO/WELCOME): send references from now on.
  void use_shared_trace() { shared_trace_ = true; }
  bool shared_trace() const { return shared_trace_; }
  // How this link's batches travel (set before the first record; default zstd level 1).
  void set_codec(wire::BatchCodec codec, int level) {
    codec_ = codec;
    level_ = level;
  }
  wire::BatchCodec codec() const { return codec_; }
  int codec_level() const { return level_; }
  // Flow control. The routing thread packs this link's batches into `feed` (BatchPacker); the
  // control thread sends them from there while credit allows (`index`: this link's queue), or,
  // once the link has finished, drops them (keeping their records' offsets: they were sent to
  // it, never confirmed). END follows the last batch once want_end() was called.
  void pump(RouteFeed* feed, size_t index, int credit_window);
  // Every batch still queued for it, as dropped (the run is over: nothing more will be sent).
  void settle(RouteFeed& feed, size_t index);
  void want_end() { want_end_ = true; }  // routing is over: END after the last batch
  bool end_sent() const { return end_sent_; }

  // Liveness, on the run's clock.
  void heard(int64_t now_ns) { last_heard_ns_ = now_ns; }
  int64_t last_heard_ns() const { return last_heard_ns_; }
  void mark_lost(const std::string& why);
  // Lost because it stopped answering (no heartbeat, no result after ABORT): a --local worker
  // in that state is killed without a grace period (LocalWorkers::stop).
  void mark_unresponsive(const std::string& why);
  bool unresponsive() const { return unresponsive_; }
  void mark_rejected(const std::string& why);

  // While Connecting: an error naming what the socket monitor saw when the ZeroMQ handshake
  // itself failed (a refused or mismatched key, CURVE on one side only); ok otherwise.
  Status handshake_status();
  // The handshake: WELCOME accepted (Connecting -> Ready; the monitor is no longer needed),
  // the clock estimate, START sent (Ready -> Running).
  void accept_welcome(wire::Welcome w);
  void set_clock_estimate(int64_t offset_ns, int64_t uncertainty_ns) {
    clock_offset_ns_ = offset_ns;
    clock_uncertainty_ns_ = uncertainty_ns;
  }
  void mark_running(int64_t now_ns);
  // READY: whether and when it arrived (on the run's clock) and how long the worker took to
  // build its engine (its own measure).
  bool ready() const { return ready_; }
  int64_t ready_ns() const { return ready_ns_; }
  int64_t engine_build_ns() const { return engine_build_ns_; }

  // What the run reads.
  const wire::Welcome& welcome() const { return welcome_; }
  int64_t clock_offset_ns() const { return clock_offset_ns_; }            // worker - coordinator
  int64_t clock_uncertainty_ns() const { return clock_uncertainty_ns_; }  // half the best RTT
  const wire::Progress& progress() const { return progress_; }  // the run loop's thread only
  // The same numbers for another thread (the live line), written as PROGRESS arrives.
  struct LiveProgress {
    std::atomic<uint64_t> records{0}, failed{0}, sent{0};
    std::atomic<int64_t> last_lateness_ns{0};
    std::atomic<double> trace_time_s{0.0};
    std::atomic<double> read_fraction{-1.0};  // a self-routing worker's scan (wire::Progress)
  };
  const LiveProgress& live() const { return live_; }
  // The name its results carry: the worker's own (WELCOME), else its address.
  std::string node_name() const {
    return welcome_.hostname.empty() ? address_.name() : welcome_.hostname;
  }
  // Its address, and its own name when that differs: "10.0.0.7:5555 (gpu-node-3)".
  std::string peer() const {
    const std::string name = node_name();
    return name == address_.name() ? name : address_.name() + " (" + name + ")";
  }
  // The run windows received since the last call (fleet_timeseries.csv rows), oldest first.
  std::vector<stats::RunWindow> take_windows();
  // Windows received but not yet written (the run loop collects them every poll): a bound
  // against a peer that floods, far above a worker's 4096 per PROGRESS.
  static constexpr size_t kMaxPendingWindows = 100'000;
  // The node's result, once DONE arrived and decoded; taken once when the report is built.
  std::optional<wire::NodeResult> take_result() { return std::exchange(result_, std::nullopt); }
  const std::string& lost_reason() const { return lost_reason_; }
  // The worker's own ABORT, e.g. its engine config was refused, and its kind (wire::Abort).
  const std::string& abort_reason() const { return abort_reason_; }
  wire::AbortKind abort_kind() const { return abort_kind_; }
  struct Counters {
    uint64_t records_sent = 0;
    uint64_t batches_sent = 0;
    uint64_t raw_bytes_sent = 0;    // record frames before encoding
    uint64_t batch_bytes_sent = 0;  // after (the batch payloads on the wire)
    uint64_t records_by_reference = 0;
    // Records confirmed finished by PROGRESS (the first N this link sent, in order), and the
    // trace offset of the last confirmed record (-1: none).
    uint64_t records_confirmed = 0;
    int64_t last_confirmed_offset = -1;
    // Every message either way (batches included), for the control-plane cost at scale
    // (docs/scaling.md); done_bytes: the DONE message alone.
    uint64_t messages_sent = 0;
    uint64_t messages_received = 0;
    uint64_t bytes_received = 0;
    uint64_t done_bytes = 0;
  };
  const Counters& counters() const { return counters_; }
  // The trace offset of the first record sent but not confirmed (-1: none).
  int64_t first_unconfirmed_offset() const {
    return unconfirmed_.empty() ? -1 : static_cast<int64_t>(unconfirmed_.front());
  }

 private:
  void on_ready(const wire::Envelope& env);
  void on_credit(const wire::Envelope& env);
  void on_progress(const wire::Envelope& env);
  bool try_send(zmq::message_t& m);
  void hand_over(const PackedBatch& b);  // a batch taken from the feed: its records are sent
  void drop(const std::vector<PackedBatchPtr>& batches);
  void warn_once_windows();
  void on_done(const wire::Envelope& env);
  void on_abort(const wire::Envelope& env);
  void confirm(uint64_t records);

  State state_ = State::Connecting;
  wire::Welcome welcome_;
  int64_t clock_offset_ns_ = 0;
  int64_t clock_uncertainty_ns_ = 0;
  bool ready_ = false;
  int64_t ready_ns_ = 0;
  int64_t engine_build_ns_ = 0;
  wire::Progress progress_;
  LiveProgress live_;
  std::vector<stats::RunWindow> windows_;
  std::deque<zmq::message_t> unsent_;  // before WELCOME (retry_unsent)
  uint64_t windows_dropped_ = 0;
  std::optional<wire::NodeResult> result_;
  std::string lost_reason_;
  bool unresponsive_ = false;
  std::string abort_reason_;
  wire::AbortKind abort_kind_ = wire::AbortKind::None;
  Counters counters_;
  LinkRouter& router_;
  WorkerAddress address_;
  std::string peer_;             // this link's routing id on the router
  std::string own_fingerprint_;  // the coordinator's key, for a refused handshake's message
  bool watch_handshake_ = true;  // until WELCOME
  wire::BatchCodec codec_ = wire::BatchCodec::Zstd;
  int level_ = 1;
  bool shared_trace_ = false;
  int64_t in_flight_ = 0;
  bool want_end_ = false;
  bool end_sent_ = false;
  int64_t last_heard_ns_ = 0;
  zmq::message_t rx_;  // keeps the last received message alive for raw_ref fields
  // Offsets of records sent but not yet confirmed: bounded by the credit window, since the
  // worker confirms as it dispatches (a lost link's also holds the batches it never sent).
  std::deque<uint64_t> unconfirmed_;
};

}  // namespace fleet::session
