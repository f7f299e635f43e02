// A replay's L2 failures in its log, as they happen and at a bounded rate (stats/l2_failure_log.h):
// listens to the engine for the run and, once the engine has closed, logs what no line reported
// yet and hands back the records with their times since T0 (for the node's result).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/engine/engine.h"
#include "fleet/stats/l2_failure_log.h"

namespace fleet::replay {

class L2FailureLogging {
 public:
  // `t0_ns` on the engine's clock; `prefix` starts each line (a worker's name).
  L2FailureLogging(engine::Engine& engine, int64_t t0_ns, std::string prefix);
  ~L2FailureLogging();  // stops listening
  L2FailureLogging(const L2FailureLogging&) = delete;
  L2FailureLogging& operator=(const L2FailureLogging&) = delete;

  // After the engine closed: the last lines, and every adapter's record rebased to T0.
  std::vector<stats::L2FailureRecord> finish();

 private:
  engine::Engine& engine_;
  int64_t t0_ns_;
  stats::L2FailureLog log_;  // touched under the engine's lock (its listener), then by finish()
};

}  // namespace fleet::replay
