// Routing one record read from a trace, the one way both sides do it: the coordinator when it
// routes for its workers, and a worker that reads the trace and routes itself
// (docs/sharding.md, "Workers that route themselves").
#pragma once

#include <vector>

#include "fleet/plan/shard_router.h"
#include "fleet/trace/frame_reader.h"

namespace fleet::plan {

// The record's routes; none for a record the deferred args check finds malformed, which the
// reader then counts and reports exactly as if it had refused the frame itself.
const std::vector<Route>& route_or_reject(ShardRouter& router, trace::FrameReader& reader,
                                          const trace::RecordView& rec);

}  // namespace fleet::plan
