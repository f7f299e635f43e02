// --local N: starts N worker processes on loopback (each binds an ephemeral port and announces
// it), and stops them when the run is over, whatever happened.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "fleet/session/worker_addresses.h"

namespace fleet::session {

class LocalWorkers {
 public:
  // Throws std::runtime_error when the worker binary cannot be found or a worker does not
  // announce its endpoint within `timeout_ms`.
  LocalWorkers(int count, const std::vector<std::string>& extra_args, int timeout_ms = 10000);
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  const std::vector<WorkerAddress>& addresses() const { return addresses_; }
  const std::vector<pid_t>& pids() const { return pids_; }
  // SIGTERM, then SIGKILL after a grace period; reaps the processes.
  void stop();

  // The worker binary: $FLEET_WORKER_BIN, next to this executable, ../worker/worker, or PATH.
  static std::string find_worker_binary();

 private:
  std::vector<pid_t> pids_;
  std::vector<WorkerAddress> addresses_;
};

}  // namespace fleet::session
