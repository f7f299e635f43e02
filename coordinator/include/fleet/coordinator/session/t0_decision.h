// When a fleet run starts (T0), decided from what the run has measured instead of a constant:
// every live worker has built its engine (READY) and the first batches are queued (the
// coordinator is waiting for credit, or has sent the whole trace). T0 is then that instant
// plus a margin that covers GO's trip and the clock estimates' error. `--start-delay` (from
// the end of the handshake) and `--start-at` (an absolute instant) are floors on top.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fleet::session {

// GO's decode on the worker and the wakeup of its replay thread, on top of the clock margin.
inline constexpr int64_t kGoProcessingNs = 2'000'000;

struct NodeReadiness {
  std::string name;
  bool lost = false;  // a lost worker is not waited for
  bool ready = false;
  int64_t ready_ns = 0;  // READY's arrival, coordinator clock
  int64_t engine_build_ns = 0;
  int64_t clock_uncertainty_ns = 0;  // half the best ping RTT
};

struct T0Inputs {
  int64_t handshake_end_ns = 0;  // clocks estimated
  int64_t now_ns = 0;
  // The instant the stream first waited for credit or had sent everything; 0: not yet.
  int64_t queued_ns = 0;
  int64_t start_delay_ns = 0;  // floor: handshake_end + this
  int64_t start_at_ns = 0;     // floor: this instant (0: none)
};

struct T0Decision {
  int64_t t0_ns = 0;
  int64_t ready_ns = 0;  // the last READY among live workers
  std::string slowest_node;
  int64_t slowest_engine_build_ns = 0;  // the slowest engine build
  int64_t queued_ns = 0;
  int64_t margin_ns = 0;             // readiness -> T0 when nothing else holds it back
  int64_t clock_uncertainty_ns = 0;  // the largest, over live workers
  std::string waited_for;            // "readiness" | "--start-delay" | "--start-at"
  int64_t start_at_missed_ns = 0;    // --start-at had passed by this much: T0 moved later
  nlohmann::json to_json(int64_t handshake_end_ns) const;
};

// nullopt while a live worker has not answered READY or nothing is queued yet, and when no
// worker is live (the run is ending without a start).
std::optional<T0Decision> decide_t0(const std::vector<NodeReadiness>& nodes, const T0Inputs& in);

}  // namespace fleet::session
