// The ZeroMQ side of a worker (DESIGN.md §4): binds one ROUTER socket, accepts one run at a time,
// answers the handshake and clock pings, feeds received batches to a replay session on its own
// thread, returns CREDITs, heartbeats every 500 ms, and sends the node's result in DONE. It
// aborts the run by itself when the coordinator goes silent, so no orphan load stays on a
// shared L2. All socket work happens on the thread that calls serve().
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "fleet/storage/engine_config.h"

namespace fleet::service {

struct WorkerOptions {
  std::string listen = "tcp://0.0.0.0:5555";
  storage::EngineConfig engine;  // defaults; a run's START may override them
  int heartbeat_ms = 500;
  int lost_after_heartbeats = 3;
  int max_runs = 0;             // stop after this many runs (0 = serve forever)
  bool announce = false;        // print "LISTENING <endpoint>" on stdout once bound
  std::string name;             // reported node name; default: host name
};

class WorkerService {
 public:
  explicit WorkerService(WorkerOptions options);
  ~WorkerService();
  WorkerService(const WorkerService&) = delete;
  WorkerService& operator=(const WorkerService&) = delete;

  // Serves until stop() or max_runs. Throws std::runtime_error when the endpoint cannot be
  // bound (message names it).
  void serve();
  void stop() { stop_.store(true); }

 private:
  struct Impl;
  WorkerOptions options_;
  std::atomic<bool> stop_{false};
};

}  // namespace fleet::service
