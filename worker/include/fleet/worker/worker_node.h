// One worker's bound socket and protocol state machine, driven by its owner's poll loop: the
// `worker` binary's WorkerService runs one with a loop of its own; bench/fleet_sim hosts
// hundreds in one process over one poll (docs/scaling.md, "1,000 simulated workers"). All of
// a node's socket work happens on the thread that calls serve().
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <zmq.hpp>

#include "fleet/util/status.h"
#include "fleet/worker/worker_service.h"

namespace fleet::service {

class WorkerProtocol;

class WorkerNode {
 public:
  // Binds options.listen on `ctx`, speaking CURVE when options.security.curve is set (the
  // context's ZAP handler must be bound already). An error names --listen when the endpoint
  // cannot be bound. `clock` and `stop` must outlive the node.
  static Result<std::unique_ptr<WorkerNode>> bind(zmq::context_t& ctx, WorkerOptions options,
                                                  util::Clock& clock,
                                                  const std::atomic<bool>& stop);
  ~WorkerNode();
  WorkerNode(const WorkerNode&) = delete;
  WorkerNode& operator=(const WorkerNode&) = delete;

  const WorkerOptions& options() const { return options_; }
  // The bound endpoint: port 0 resolved, an IPv4 address on a dual-stack socket shown plain.
  const std::string& endpoint() const { return endpoint_; }

  // Serves with a poll loop of its own until `stop` or --max-runs runs are done.
  void run();

  static constexpr size_t kMaxPollItems = 2;
  // What to poll for this node (at most kMaxPollItems, written to `out`), and after the poll,
  // what it found plus the periodic duties (CREDIT, PROGRESS, heartbeats, the result).
  size_t poll_items(zmq::pollitem_t* out);
  void serve(const zmq::pollitem_t* items, size_t n);
  bool running() const;  // a run started and its result is not out yet
  bool stopped() const;  // --max-runs runs are done (or given up on)

 private:
  WorkerNode(zmq::context_t& ctx, WorkerOptions options);

  WorkerOptions options_;
  zmq::socket_t sock_;
  std::string endpoint_;
  std::unique_ptr<WorkerProtocol> protocol_;
};

}  // namespace fleet::service
