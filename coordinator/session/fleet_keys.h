// The run's CURVE keys, for the storage and the L2 fleet runs. Apart from known_workers.h, which
// the --workers fuzz targets compile without the coordinator's options.
#pragma once

#include <optional>
#include <vector>

#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/session/known_workers.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "fleet/util/status.h"

namespace fleet::session {

// The coordinator's key (--curve-cert, or an ephemeral pair for --local unless --insecure) and
// every worker's (assign_worker_keys, from the hosts file or --known-workers); a warning for
// each plaintext link off this host.
Status load_fleet_keys(const FleetOptions& o, std::vector<WorkerAddress>& addresses,
                       std::optional<security::CurveKeyPair>& curve);

}  // namespace fleet::session
