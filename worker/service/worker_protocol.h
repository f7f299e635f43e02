// The worker's side of the protocol (docs/protocol.md) as a state machine over one ROUTER
// socket: which coordinator it serves, which messages each state accepts, and the periodic
// duties (CREDIT, PROGRESS, heartbeats, the coordinator's liveness, the result). All socket
// work happens on the thread that calls run(); time comes from the injected clock, so the
// heartbeat and loss rules can be tested on a VirtualClock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <zmq.hpp>

#include "fleet/util/log_limiter.h"
#include "fleet/wire/protocol.h"
#include "fleet/worker/worker_service.h"
#include "replay_run.h"

namespace fleet::trace {
class SharedTrace;
}

namespace fleet::service {

class WorkerProtocol {
 public:
  enum class State {
    Idle,       // no coordinator: accepts HELLO
    Connected,  // HELLO accepted: PING, START (or a new HELLO from the same coordinator)
    Running,    // START accepted: BATCH, END, ABORT; the result goes out as DONE
    Exiting,    // --max-runs reached: the last result is out, waiting for its DONE_ACK
    Stopped,    // run() returns
  };

  WorkerProtocol(zmq::socket_t& sock, const WorkerOptions& options, util::Clock& clock,
                 const std::atomic<bool>& stop);
  ~WorkerProtocol();
  void run();  // until stop, or --max-runs runs are done
  State state() const { return state_; }
  // One pass of run() for a caller that polls many workers at once (WorkerNode): the items to
  // poll (the socket, and while a run is on its queue's wakeup), then what the poll found and
  // the periodic duties.
  static constexpr size_t kMaxPollItems = 2;
  size_t poll_items(zmq::pollitem_t* out);
  void after_poll(const zmq::pollitem_t* items, size_t n);

 private:
  // One received message: the sender's identity and the decoded body.
  struct Incoming {
    std::string from;
    wire::Envelope env;
  };
  void receive();
  void dispatch(const Incoming& in);
  bool admit(const Incoming& in);  // false: not for this state or not from our coordinator
  void on_hello(const Incoming& in);
  void on_ping(const Incoming& in);
  void on_start(const Incoming& in);
  // START's self_routing into the run's setup; false: the run was refused (ABORT sent).
  bool apply_self_routing(const wire::Start& s, RunSetup& setup);
  // START's l2 block into the run's setup: every file within --trace-root, a known shard
  // mode; false: the run was refused (ABORT sent). worker_l2_start.cc.
  bool apply_l2(const wire::Start& s, RunSetup& setup);
  void on_batch(const Incoming& in);
  void on_go(const Incoming& in);
  void on_end(const Incoming& in);
  void on_abort(const Incoming& in);
  void tick();  // the periodic duties, after every poll
  void send_credit_and_result();
  void send_heartbeat();
  void check_coordinator_alive(int64_t now);

  // `payload` (a std::string or a util::HugeString) is handed to ZeroMQ without a copy.
  template <class Payload>
  void send_to(const std::string& id, Payload payload);
  void refuse_hello(const std::string& id, std::string why);
  // What a peer causes is logged at a bounded rate (util::LogLimiter); the rest is counted.
  void warn_peer(const std::string& line);
  // The run cannot go on: tell the coordinator why (ABORT `kind`), end it and count it.
  void abort_run(wire::AbortKind kind, std::string reason, const char* why);
  void end_session(const char* why);  // back to Idle
  void count_run();                   // a started run ended: maybe Exiting

  zmq::socket_t& sock_;
  const WorkerOptions& options_;
  util::Clock& clock_;
  const std::atomic<bool>& stop_;
  const int64_t beat_ns_;
  const int64_t lost_ns_;
  const std::string default_digest_;

  State state_ = State::Idle;
  std::string peer_;  // identity of the coordinator served ("" in Idle and Exiting)
  std::shared_ptr<const trace::SharedTrace> shared_trace_;  // offered in HELLO and verified
  std::unique_ptr<ReplayRun> run_;
  int64_t last_heard_ns_ = 0;
  int64_t last_beat_ns_ = 0;
  int runs_done_ = 0;
  int64_t exit_deadline_ns_ = 0;  // Exiting: give up waiting for DONE_ACK then
  util::LogLimiter peer_log_;
};

std::string_view worker_state_name(WorkerProtocol::State s);

}  // namespace fleet::service
