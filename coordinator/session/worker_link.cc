#include "fleet/coordinator/session/worker_link.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "fleet/wire/owned_message.h"

namespace fleet::session {

WorkerLink::WorkerLink(LinkRouter& router, WorkerAddress address, const std::string& identity,
                       std::string peer, std::string own_fingerprint)
    : router_(router),
      address_(std::move(address)),
      peer_(std::move(peer)),
      own_fingerprint_(std::move(own_fingerprint)) {
  router_.connect(address_, identity, peer_);
}

WorkerLink::~WorkerLink() = default;

namespace {
constexpr const char* kNeedsCurve =
    "the worker requires CURVE: give the coordinator --curve-cert and the worker's key "
    "(docs/security.md)";
constexpr const char* kNotCurve = "the worker does not use CURVE (started without --curve-cert)";
}  // namespace

Status WorkerLink::handshake_status() {
  if (!watch_handshake_) return Status();
  using Verdict = security::HandshakeVerdict;
  const security::HandshakeTracker& tracker = router_.handshake(peer_);
  const bool curve = !own_fingerprint_.empty();
  const std::string who = "worker " + address_.name() + ": ";
  switch (tracker.verdict()) {
    case Verdict::Pending:
    case Verdict::Succeeded:
      return Status();
    case Verdict::Refused:
      return Status::error(who +
                           "CURVE handshake refused: this coordinator's key is not authorized "
                           "(its fingerprint " +
                           own_fingerprint_ +
                           "; add its public certificate to the worker's --authorized-keys)");
    case Verdict::KeyMismatch:
      // A CURVE worker often hangs up on a plaintext greeting before saying why.
      if (!curve) return Status::error(who + kNeedsCurve);
      if (security::peer_accepts_plaintext(router_.context(), address_.endpoint(), 1000)) {
        return Status::error(who + kNotCurve);  // its refusal was reset before we read it
      }
      return Status::error(who +
                           "CURVE handshake failed: server key mismatch (the key given for this "
                           "worker, " +
                           security::fingerprint(address_.server_key) + ", is not its key)");
    case Verdict::MechanismMismatch:
      return Status::error(
          who +
          (curve ? "the worker does not use CURVE (started without --curve-cert)" : kNeedsCurve));
    case Verdict::OtherFailure:
      return Status::error(who + "handshake failed: " + tracker.detail());
  }
  return Status();
}

// Never blocks: sndhwm is unlimited, so the router refuses a message only when the peer has no
// pipe left, i.e. the connection ended in a protocol error (a failed handshake, an oversized
// message) and will not come back.
bool WorkerLink::try_send(zmq::message_t& m) {
  if (router_.send(peer_, m)) {
    ++counters_.messages_sent;
    return true;
  }
  if (state_ != State::Connecting) {
    mark_lost("its connection was closed after a protocol error; a message could not be sent");
  }
  return false;
}

void WorkerLink::send(std::string payload) {
  zmq::message_t m = wire::owned_message(std::move(payload));
  if (try_send(m) || state_ != State::Connecting) return;
  // Before WELCOME the handshake may still be settling: keep it for retry_unsent(); the
  // handshake monitor names the failure if the connection is gone for good.
  unsent_.push_back(std::move(m));
}

void WorkerLink::retry_unsent() {
  while (!unsent_.empty() && try_send(unsent_.front())) unsent_.pop_front();
}

void WorkerLink::send_last(std::string payload) {
  router_.linger_on_close(1000);
  send(std::move(payload));
}

wire::Envelope WorkerLink::accept(zmq::message_t m) {
  ++counters_.messages_received;
  counters_.bytes_received += m.size();
  rx_ = std::move(m);
  try {
    return wire::decode(static_cast<const char*>(rx_.data()), rx_.size());
  } catch (const wire::ProtocolError& e) {
    spdlog::warn("worker {}: bad message: {}", address_.name(), e.what());
    return wire::Envelope{};  // empty type: ignored by callers
  }
}

void WorkerLink::handle(const wire::Envelope& env) {
  try {
    switch (env.kind) {
      case wire::MessageType::Ready:
        return on_ready(env);
      case wire::MessageType::Credit:
        return on_credit(env);
      case wire::MessageType::Progress:
        return on_progress(env);
      case wire::MessageType::Done:
        return on_done(env);
      case wire::MessageType::Abort:
        return on_abort(env);
      default:
        return;  // heartbeats only prove it alive; pongs and welcomes are the run's
    }
  } catch (const std::exception& e) {
    if (env.kind == wire::MessageType::Done) {
      // Its one result is unusable and it will send no other: say why now rather than let it
      // fall silent and be reported as a missed heartbeat.
      spdlog::error("worker {}: its result could not be decoded: {}", peer(), e.what());
      mark_lost(std::string("its result could not be decoded: ") + e.what());
      return;
    }
    spdlog::warn("worker {}: bad \"{}\" message: {}", address_.name(), env.type, e.what());
  }
}

void WorkerLink::on_credit(const wire::Envelope& env) {
  const int64_t batches = env.as<wire::Credit>().batches;
  // A negative credit (INT64_MIN overflowed the subtraction) is a broken peer's; it is ignored.
  if (batches < 0) throw wire::ProtocolError("credit of " + std::to_string(batches) + " batches");
  in_flight_ = batches >= in_flight_ ? 0 : in_flight_ - batches;
}

void WorkerLink::on_progress(const wire::Envelope& env) {
  progress_ = env.as<wire::Progress>();
  confirm(static_cast<uint64_t>(std::max<int64_t>(0, progress_.records)));
  // A worker sends about one window per second of run; more than this in one message is not
  // a worker of ours, and the time series is not worth unbounded memory.
  if (progress_.windows.size() + windows_.size() > kMaxPendingWindows) {
    warn_once_windows();
  } else {
    for (auto& w : progress_.windows) windows_.push_back(w);
  }
  progress_.windows.clear();
  live_.records.store(static_cast<uint64_t>(std::max<int64_t>(0, progress_.records)));
  live_.failed.store(static_cast<uint64_t>(std::max<int64_t>(0, progress_.failed)));
  live_.last_lateness_ns.store(progress_.last_lateness_ns);
  live_.trace_time_s.store(progress_.trace_time_s);
  live_.read_fraction.store(progress_.read_fraction);
}

void WorkerLink::warn_once_windows() {
  if (windows_dropped_++ == 0) {
    spdlog::warn("worker {}: too many run windows in flight; dropping some from the time series",
                 address_.name());
  }
}

std::vector<stats::RunWindow> WorkerLink::take_windows() {
  std::vector<stats::RunWindow> out;
  out.swap(windows_);
  return out;
}

void WorkerLink::on_done(const wire::Envelope& env) {
  auto d = env.as<wire::Done>();
  counters_.done_bytes = rx_.size();
  const auto t = std::chrono::steady_clock::now();
  // The node's samples stay in the received message (kept alive by its stats) instead of
  // being copied; moving a large ZeroMQ message keeps its buffer where it is (checked).
  auto owner = std::make_shared<zmq::message_t>(std::move(rx_));
  const bool same_buffer = owner->data<char>() <= d.result.ptr &&
                           d.result.ptr + d.result.size <= owner->data<char>() + owner->size();
  if (!same_buffer) {  // a message small enough to live inside zmq::message_t: move it back
    rx_ = std::move(*owner);
    owner.reset();
  }
  result_ = wire::decode_node_result(std::string_view(d.result.ptr, d.result.size), owner);
  spdlog::debug(
      "worker {}: result of {} bytes decoded in {:.1f} ms (samples {})", address_.name(),
      d.result.size,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count(),
      owner.use_count() > 1 ? "read in place" : "copied");
  state_ = State::Done;
  confirm(counters_.records_sent);
  send(wire::encode(wire::DoneAck{}));
}

void WorkerLink::on_abort(const wire::Envelope& env) {
  auto a = env.as<wire::Abort>();
  abort_reason_ = a.reason;
  abort_kind_ = wire::abort_kind_from_name(a.kind);
  spdlog::error("worker {} aborted: {}", address_.name(), abort_reason_);
  mark_lost(abort_reason_);
}

void WorkerLink::accept_welcome(wire::Welcome w) {
  welcome_ = std::move(w);
  state_ = State::Ready;
  watch_handshake_ = false;
}

void WorkerLink::on_ready(const wire::Envelope& env) {
  const auto r = env.as<wire::Ready>();
  if (ready_) return;
  ready_ = true;
  ready_ns_ = last_heard_ns_;  // set by the loop that received it
  engine_build_ns_ = std::max<int64_t>(0, r.engine_build_ns);
}

void WorkerLink::mark_running(int64_t now_ns) {
  state_ = State::Running;
  heard(now_ns);
}

void WorkerLink::confirm(uint64_t records) {
  while (counters_.records_confirmed < records && !unconfirmed_.empty()) {
    counters_.last_confirmed_offset = static_cast<int64_t>(unconfirmed_.front());
    unconfirmed_.pop_front();
    ++counters_.records_confirmed;
  }
}

void WorkerLink::hand_over(const PackedBatch& b) {
  unconfirmed_.insert(unconfirmed_.end(), b.offsets.begin(), b.offsets.end());
  counters_.records_sent += b.offsets.size();
  counters_.records_by_reference += b.by_reference;
  counters_.raw_bytes_sent += b.message.raw_bytes;
  counters_.batch_bytes_sent += b.message.data_bytes;
  live_.sent.store(counters_.records_sent, std::memory_order_relaxed);
}

void WorkerLink::drop(const std::vector<PackedBatchPtr>& batches) {
  for (const auto& b : batches) hand_over(*b);
}

void WorkerLink::pump(RouteFeed* feed, size_t index, int credit_window) {
  if (finished()) {
    if (feed) drop(feed->close(index));
    return;
  }
  if (feed && in_flight_ < credit_window) {
    std::vector<PackedBatchPtr> ready =
        feed->take(index, static_cast<size_t>(credit_window - in_flight_));
    for (size_t i = 0; i < ready.size(); ++i) {
      hand_over(*ready[i]);
      const std::string_view bytes = ready[i]->message.bytes;
      zmq::message_t m = wire::shared_message(std::move(ready[i]), bytes);
      if (!try_send(m)) {  // lost: the rest is dropped
        drop({ready.begin() + static_cast<ptrdiff_t>(i) + 1, ready.end()});
        drop(feed->close(index));
        return;
      }
      ++in_flight_;
      ++counters_.batches_sent;
    }
  }
  // Self-routing runs have no feed: END at once, with nothing sent.
  if (want_end_ && !end_sent_ && (!feed || feed->queued(index) == 0)) {
    wire::End e;
    e.batches = static_cast<int64_t>(counters_.batches_sent);
    e.records = static_cast<int64_t>(counters_.records_sent);
    send(wire::encode(e));
    end_sent_ = true;
  }
}

void WorkerLink::settle(RouteFeed& feed, size_t index) { drop(feed.close(index)); }

void WorkerLink::mark_lost(const std::string& why) {
  if (state_ == State::Done) return;
  state_ = State::Lost;
  lost_reason_ = why;
}

void WorkerLink::mark_unresponsive(const std::string& why) {
  if (state_ == State::Done) return;
  mark_lost(why);
  unresponsive_ = true;
}

void WorkerLink::mark_rejected(const std::string& why) {
  state_ = State::Rejected;
  lost_reason_ = why;
}

}  // namespace fleet::session
