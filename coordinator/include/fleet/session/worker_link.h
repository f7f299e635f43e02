// The coordinator's end of one worker connection: a DEALER socket, the handshake and clock
// estimate, credit-based flow control with a bounded queue of batches waiting for credit, and
// the worker's liveness, progress and final result. Every link lives on the coordinator's
// main thread (ZeroMQ sockets are not shared across threads).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <zmq.hpp>

#include "fleet/session/worker_addresses.h"
#include "fleet/wire/batch.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet::session {

class WorkerLink {
 public:
  enum class State { Connecting, Ready, Running, Done, Lost, Rejected };

  WorkerLink(zmq::context_t& ctx, WorkerAddress address, const std::string& identity);
  WorkerLink(const WorkerLink&) = delete;
  WorkerLink& operator=(const WorkerLink&) = delete;

  const WorkerAddress& address() const { return address_; }
  zmq::socket_t& socket() { return sock_; }
  State state() const { return state_; }
  bool finished() const { return state_ == State::Done || state_ == State::Lost || state_ == State::Rejected; }

  void send(std::string payload);  // handed to ZeroMQ without a copy
  // Receives and handles everything waiting on the socket (non-blocking). Returns messages of
  // types the link does not consume itself (e.g. "pong", "welcome") one at a time.
  std::optional<wire::Envelope> receive_one();
  void handle(const wire::Envelope& env);  // credit, progress, heartbeat, done, abort

  // Batching with flow control.
  // `file_offset`: the record's offset in the trace, kept until the worker's progress confirms
  // the record finished (a lost node's report then says exactly where it got to).
  // `original`: `body` is the trace's own frame at `file_offset` (not a re-encoded sub-call),
  // so with a shared trace it travels as a reference.
  void add_record(std::string_view body, double t_shift, uint64_t file_offset, bool original);
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
  void flush_builder();
  // What add_record does, for a BatchFanout that builds one batch for several links: account
  // one record of the shared batch, then queue the batch (its seq must be this link's next).
  void note_record(uint64_t file_offset, bool by_reference);
  void enqueue_batch(std::shared_ptr<const wire::BatchMessage> batch);
  int64_t next_seq() const { return seq_; }
  void pump(int credit_window);  // sends queued batches while credit allows
  size_t queued_batches() const { return pending_.size(); }
  void send_end_when_drained();
  bool end_sent() const { return end_sent_; }

  // Liveness.
  void heard(int64_t now_ns) { last_heard_ns_ = now_ns; }
  int64_t last_heard_ns() const { return last_heard_ns_; }
  void mark_lost(const std::string& why);
  void mark_rejected(const std::string& why);

  // Public state the run reads.
  wire::Welcome welcome;
  int64_t clock_offset_ns = 0;       // worker clock - coordinator clock
  int64_t clock_uncertainty_ns = 0;  // half the best round trip
  wire::Progress progress;
  std::optional<wire::NodeResult> result;
  std::string lost_reason;
  uint64_t records_sent = 0;
  uint64_t batches_sent = 0;
  uint64_t raw_bytes_sent = 0;    // record frames before encoding
  uint64_t batch_bytes_sent = 0;  // after (the batch payloads on the wire)
  uint64_t records_by_reference = 0;
  std::string abort_reason;  // the worker's own ABORT (e.g. engine config rejected)
  std::string abort_kind;    // its kind ("config": the run's engine config was refused)
  // Records confirmed finished by PROGRESS (the first N this link sent, in order), and the
  // trace offsets of the last confirmed and the first unconfirmed record (-1: none).
  uint64_t records_confirmed = 0;
  int64_t last_confirmed_offset = -1;
  int64_t first_unconfirmed_offset() const {
    return unconfirmed_.empty() ? -1 : static_cast<int64_t>(unconfirmed_.front());
  }
  State state_ = State::Connecting;

 private:
  WorkerAddress address_;
  zmq::socket_t sock_;
  wire::BatchBuilder builder_;
  wire::BatchCodec codec_ = wire::BatchCodec::Zstd;
  int level_ = 1;
  bool shared_trace_ = false;
  double builder_shift_ = 0.0;
  struct Pending {
    std::shared_ptr<const wire::BatchMessage> batch;  // shared by every link of a fan-out
  };
  std::deque<Pending> pending_;
  int64_t in_flight_ = 0;
  int64_t seq_ = 0;
  bool want_end_ = false;
  bool end_sent_ = false;
  int64_t last_heard_ns_ = 0;
  zmq::message_t rx_;  // keeps the last received message alive for raw_ref fields
  // Offsets of records sent but not yet confirmed: bounded by the credit window and the
  // pending queue, since the worker confirms as it dispatches.
  std::deque<uint64_t> unconfirmed_;
  void confirm(uint64_t records);
};

}  // namespace fleet::session
