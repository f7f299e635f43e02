// What a worker that reads the trace itself replays from (docs/sharding.md, "Workers that
// route themselves"): its share of the trace, found either by routing every record
// (SelfRoutedSource) or by reading a saved routing plan (PlanShareSource). Either reports, for
// DONE's "self_route", how far it got and what it kept.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/causal/pacing_stats.h"
#include "fleet/replay/record_source.h"

namespace fleet::service {

class ShareSource : public replay::RecordSource {
 public:
  // Why the source stopped before the end of its share ("" when it did not): a trace or plan
  // that fails mid-read, or a record malformed to the replay but not to whoever routed it.
  virtual const std::string& problem() const = 0;
  // For DONE's "self_route" (coordinator/session/self_routed_plan.h reads it).
  virtual nlohmann::json report() const = 0;
  // The edges the time windows cut whose child runs here, when the source counted them.
  virtual void cut_edges_into(causal::PacingStats& pacing) const { (void)pacing; }
};

}  // namespace fleet::service
