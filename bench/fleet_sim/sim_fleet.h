// Many protocol-speaking workers in one process (bench/fleet_sim, docs/scaling.md "1,000
// simulated workers"): each a real service::WorkerNode (its own ROUTER socket, CURVE key pair,
// handshake, heartbeats, PROGRESS, a noop-engine replay session and DONE), all served by one
// thread over one poll, so a coordinator can be measured against 1,000 nodes on one machine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "fleet/security/zap_handler.h"
#include "fleet/util/clock.h"
#include "fleet/util/status.h"
#include "fleet/worker/worker_node.h"

namespace fleet::sim {

struct SimOptions {
  int workers = 8;
  std::string host = "127.0.0.1";
  bool curve = true;
  int io_threads = 1;
  int heartbeat_ms = 500;
  int runs = 1;  // each node exits after this many runs (its --max-runs)
  // The poll loop's shortest pass: with hundreds of sockets a pass costs O(N), and a message
  // arriving every few microseconds would otherwise make one pass per message.
  int min_pass_us = 200;
  // The nodes' pacing clock spins this long before each record (the worker's 300 us): a
  // thousand spinning replay threads would take the machine from the coordinator measured.
  int spin_us = 0;
  // --freeze INDEX@SECONDS: that node stops answering (no reads, no heartbeats, no result)
  // SECONDS after its run started: a SIGSTOPped worker as the coordinator sees it.
  int freeze_index = -1;
  double freeze_after_s = 0.0;
};

class SimFleet {
 public:
  // Binds every node (its own port on `host`, its own CURVE key pair when `curve`, the
  // coordinator key `coordinator_public_z85` authorized).
  static Result<std::unique_ptr<SimFleet>> start(const SimOptions& o,
                                                 const std::string& coordinator_public_z85);
  ~SimFleet();

  // The coordinator's --workers file: "host:port key=<Z85>" per node.
  std::string workers_file() const;
  // Serves every node until each has done its runs (a frozen one excepted) or `stop`.
  void serve(const std::atomic<bool>& stop);

  struct Tally {
    uint64_t passes = 0;
    int finished = 0;
    std::optional<int64_t> frozen_at_unix_ms;  // when the frozen node stopped answering
    std::string frozen_name;
  };
  const Tally& tally() const { return tally_; }

 private:
  explicit SimFleet(const SimOptions& o);
  void maybe_freeze(size_t i, int64_t now_ns);

  SimOptions o_;
  util::RealClock clock_;  // every node's (and its replay's) clock
  zmq::context_t ctx_;
  std::unique_ptr<security::ZapHandler> zap_;
  std::vector<std::unique_ptr<service::WorkerNode>> nodes_;
  std::vector<std::string> public_keys_;
  std::vector<int64_t> running_since_ns_;  // 0: not running yet
  std::atomic<bool> never_{false};         // the nodes' own stop flag: the fleet stops them
  Tally tally_;
};

}  // namespace fleet::sim
