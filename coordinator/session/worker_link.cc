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
  in_flight_ -= env.as<wire::Credit>().batches;
  if (in_flight_ < 0) in_flight_ = 0;
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

void WorkerLink::add_record(std::string_view body, double t_shift, uint64_t file_offset,
                            bool original, std::string_view key_mask, uint16_t mask_keys) {
  if (shared_trace_ && original) {
    add_reference(file_offset, static_cast<uint32_t>(body.size()), t_shift, key_mask, mask_keys);
    return;
  }
  if (!builder_.empty() && t_shift != builder_shift_) flush_builder();
  builder_shift_ = t_shift;
  builder_.add(body);
  note_record(file_offset, false);
  if (builder_.full()) flush_builder();
}

void WorkerLink::add_reference(uint64_t file_offset, uint32_t body_size, double t_shift,
                               std::string_view key_mask, uint16_t mask_keys) {
  if (!builder_.empty() && t_shift != builder_shift_) flush_builder();
  builder_shift_ = t_shift;
  if (!key_mask.empty()) {
    builder_.add_masked_ref(file_offset, body_size, key_mask, mask_keys);
  } else {
    builder_.add_ref(file_offset, body_size);
  }
  note_record(file_offset, true);
  if (builder_.full()) flush_builder();
}

void WorkerLink::flush_builder() {
  if (builder_.empty()) return;
  enqueue_batch(std::make_shared<const wire::BatchMessage>(
      wire::finish_batch_message(builder_, seq_, builder_shift_, codec_, level_)));
}

void WorkerLink::note_record(uint64_t file_offset, bool by_reference) {
  unconfirmed_.push_back(file_offset);
  ++counters_.records_sent;
  live_.sent.store(counters_.records_sent, std::memory_order_relaxed);
  if (by_reference) ++counters_.records_by_reference;
}

void WorkerLink::enqueue_batch(std::shared_ptr<const wire::BatchMessage> batch) {
  ++seq_;
  counters_.raw_bytes_sent += batch->raw_bytes;
  counters_.batch_bytes_sent += batch->data_bytes;
  pending_.push_back({std::move(batch)});
}

void WorkerLink::pump(int credit_window) {
  if (finished()) {
    pending_.clear();
    return;
  }
  while (!pending_.empty() && in_flight_ < credit_window) {
    const std::string_view bytes = pending_.front().batch->bytes;
    zmq::message_t m = wire::shared_message(std::move(pending_.front().batch), bytes);
    if (!try_send(m)) {
      pending_.clear();
      return;
    }
    pending_.pop_front();
    ++in_flight_;
    ++counters_.batches_sent;
  }
  if (want_end_ && !end_sent_ && pending_.empty()) {
    wire::End e;
    e.batches = static_cast<int64_t>(counters_.batches_sent);
    e.records = static_cast<int64_t>(counters_.records_sent);
    send(wire::encode(e));
    end_sent_ = true;
  }
}

void WorkerLink::send_end_when_drained() {
  flush_builder();
  want_end_ = true;
}

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
