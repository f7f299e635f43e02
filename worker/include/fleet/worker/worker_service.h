// The ZeroMQ side of a worker (docs/protocol.md): binds one ROUTER socket and serves one run at
// a time through the protocol's state machine (worker/service/worker_protocol.h): the
// handshake and clock pings, received batches fed to a replay session on its own thread,
// CREDITs, heartbeats every 500 ms, and the node's result in DONE. It aborts the run by itself
// when the coordinator goes silent, so no orphan load stays on a shared L2. All socket work
// happens on the thread that calls serve().
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "fleet/engine/engine_config.h"
#include "fleet/security/curve_key.h"
#include "fleet/security/key_set.h"
#include "fleet/util/status.h"
#include "fleet/wire/liveness.h"
#include "fleet/worker/host_policy.h"

namespace fleet::util {
class Clock;
}

namespace fleet::service {

// Who may drive the worker (docs/security.md).
struct WorkerSecurity {
  std::optional<security::CurveKeyPair> curve;  // --curve-cert or --ephemeral-key; none: plaintext
  security::KeySet authorized;                  // --authorized-keys: the coordinators accepted
  bool insecure = false;  // --insecure: plaintext on a non-loopback address (protected mode off)
};

struct WorkerOptions {
  std::string listen = "tcp://0.0.0.0:5555";
  storage::EngineConfig engine;  // defaults; a run's START may override them
  int heartbeat_ms = wire::kHeartbeatMs;
  int lost_after_heartbeats = wire::kLostAfterHeartbeats;
  int max_runs = 0;       // stop after this many runs (0 = serve forever)
  bool announce = false;  // print "LISTENING <endpoint>" on stdout once bound
  std::string name;       // reported node name; default: host name
  WorkerSecurity security;
  policy::HostPolicy policy;  // what a run may make this host touch (--fs-root, --allow-l2, ...)
  // Heartbeats, liveness, PONG stamps and real-time runs read this clock (null: the real
  // monotonic clock). Tests inject a VirtualClock to step the liveness rules.
  util::Clock* clock = nullptr;
  // Also ends serve() once true: a signal handler's flag. It must have static storage: a
  // signal can come while the service is torn down or after (a --local worker can get its
  // parent-death SIGTERM more than once), and must touch nothing freed. Null: stop() alone ends
  // serve().
  std::atomic<bool>* stop_flag = nullptr;
};

class WorkerService {
 public:
  explicit WorkerService(WorkerOptions options);
  ~WorkerService();
  WorkerService(const WorkerService&) = delete;
  WorkerService& operator=(const WorkerService&) = delete;

  // Serves until stop() or max_runs; an error (naming the flag) when the endpoint cannot be
  // bound or protected mode refuses it.
  Status serve();
  void stop() { stop_flag().store(true); }
  // The bound endpoint (port 0 resolved), once serve() has bound it; "" before.
  std::string endpoint() const;

 private:
  std::atomic<bool>& stop_flag() { return options_.stop_flag ? *options_.stop_flag : stop_; }

  WorkerOptions options_;
  std::atomic<bool> stop_{false};  // without options_.stop_flag
  std::atomic<bool> bound_{false};
  std::string endpoint_;  // written once before bound_ is set
};

}  // namespace fleet::service
