// --plan-only --speed S on a sharded run: the causal plan preview per node, and the edges the
// plan cuts (docs/causal-pacing.md, "Plan preview"). Fed the router's decisions record by
// record while --plan-only routes the trace; each node's records are scheduled as that node
// would schedule them, and one more edge finder, run over the whole trace in recorded order
// with each record tagged by its node, counts the edges whose parent and child land on
// different nodes (the child then keeps its scaled instant).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fleet/causal/cut_edge_counter.h"
#include "fleet/causal/schedule_preview.h"
#include "fleet/coordinator/session/local_run.h"
#include "fleet/plan/shard_router.h"
#include "fleet/trace/record.h"

namespace fleet::session {

class FleetCausalPreview {
 public:
  FleetCausalPreview(const ReplayOptions& o, const plan::RouterOptions& router);
  // One record and where the router sent it (the parts of a split call as re-encoded records:
  // RouterOptions::encode_split_parts).
  void add(const trace::RecordView& rec, const std::vector<plan::Route>& routes);
  // The per-node table, the slowest node's prediction and the cut edges.
  std::string finish_text();

 private:
  const ReplayOptions& o_;
  plan::RouterOptions router_;
  std::vector<std::unique_ptr<causal::SchedulePreviewer>> nodes_;
  causal::CutEdgeCounter cut_;  // every record in recorded order, with its node
};

}  // namespace fleet::session
