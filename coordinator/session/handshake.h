// The opening of a fleet run: which workers are offered the trace file itself (records then
// travel as references, trace/shared_trace.h), HELLO/WELCOME with every worker, and the
// NTP-style clock offset of each. Timed on the run's clock.
#pragma once

#include <string>
#include <vector>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/status.h"
#include "link_set.h"

namespace fleet::session {

// --trace-access: the workers offered the trace file itself, and what their copy must match.
struct TraceOffer {
  std::string path;  // as the workers see it
  trace::TraceIdentity identity;
  std::vector<bool> offered;  // per link
};

// An error for --trace-access shared on a trace that cannot be offered.
Result<TraceOffer> plan_trace_offer(const FleetOptions& o,
                                    const std::vector<WorkerAddress>& addresses);

// HELLO to every link, WELCOME from each within `timeout_ms`; a refusal is an error carrying
// the worker's own reason.
Status handshake(LinkSet& links, const TraceOffer& offer, int timeout_ms, util::Clock& clock);

// After the handshake: references to every worker that mapped and verified the trace. With
// --trace-access shared (`required`) a worker that could not is an error; with auto it gets
// batches.
Status apply_trace_offer(LinkSet& links, const TraceOffer& offer, bool required);

// 8 rounds of one ping to each worker of a wave of up to 8 at once, wave after wave; for each
// worker, the round trip with the smallest RTT gives the offset (+/- RTT/2).
void estimate_clocks(LinkSet& links, util::Clock& clock);

}  // namespace fleet::session
