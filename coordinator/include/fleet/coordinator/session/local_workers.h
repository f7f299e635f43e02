// --local N: starts N worker processes on loopback (each binds an ephemeral port and announces
// it), and stops them when the run is over, whatever happened. With a coordinator key, every
// worker makes its own key in memory (--ephemeral-key) and announces it with its endpoint, and
// accepts only this coordinator's key: the secure path is the one every local run takes. The
// workers are the user's own processes, so their policy grants what the user could do anyway
// (--fs-root /, --trace-root /, --allow-l2 '*').
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "fleet/util/status.h"

namespace fleet::session {

class LocalWorkers {
 public:
  // The workers started and announced, or an error "--local: ..." when one cannot be started
  // or does not announce its endpoint within `timeout_ms` (those already started are stopped).
  static Result<std::unique_ptr<LocalWorkers>> start(
      int count, const std::vector<std::string>& extra_args,
      const security::CurveKeyPair* coordinator_key = nullptr, int timeout_ms = 10000);
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  const std::vector<WorkerAddress>& addresses() const { return addresses_; }
  const std::vector<pid_t>& pids() const { return pids_; }
  // Stops every worker and reaps it: SIGTERM (with SIGCONT, since a stopped process acts on
  // SIGTERM only once continued), then SIGKILL for any still running after a grace period.
  // The workers at `unresponsive` (indices into addresses()) get SIGKILL at once: the run
  // found them silent (stopped, hung), so a grace period would only delay the coordinator.
  void stop(const std::vector<size_t>& unresponsive = {});

  // The worker binary: $FLEET_WORKER_BIN, next to this executable, ../worker/worker, or PATH.
  static std::string find_worker_binary();

 private:
  LocalWorkers() = default;
  Status start_all(int count, const std::vector<std::string>& extra_args,
                   const security::CurveKeyPair* coordinator_key, int timeout_ms);
  // The directory holding the coordinator's public certificate for the workers'
  // --authorized-keys ("" without CURVE); removed once they have read it.
  Status write_coordinator_certificate(const security::CurveKeyPair& key);
  void remove_key_dir();
  // Forks and execs worker `index`; the read end of its stdout, or -1 (errno set).
  int spawn(int index, const std::string& bin, const std::vector<std::string>& flags);
  // Closes `open_fds`, stops what was started and says "--local: " + why.
  Status abandon(const std::vector<int>& open_fds, const std::string& why);

  std::string key_dir_;
  std::vector<pid_t> pids_;
  std::vector<WorkerAddress> addresses_;
};

}  // namespace fleet::session
