// A fleet's L2 timeline (docs/l2-traces.md, "Across the fleet"): each node sends its per-second
// windows (l2_timeline.h) in DONE, and the coordinator merges them on the run's T0, where every
// node's loop starts, so window i means the same second on every node.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "fleet/l2replay/l2_window.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

// The windows as DONE carries them, exact (integers, ns): {"index": [i, ...], "by_kind":
// {"<L2Op number>": {"dispatched": [...], "completed", "failed", "bytes_moved",
// "latency_p50_ns", "latency_p99_ns", "latency_max_ns", "schedule_lag_max_ns"}}}, a column per
// field with one entry per window, only for the kinds that did something. A window is ~40
// integers: a day-long run's 86 400 windows are a few MB, far below DONE's 256 MiB.
nlohmann::json l2_timeline_wire(const std::vector<L2Window>& windows);
// The inverse; an error names a column whose length differs from the index, a kind out of
// range, or indices that do not ascend.
Result<std::vector<L2Window>> l2_timeline_from_wire(const nlohmann::json& j);

// Window by window (by index): counts and bytes sum per kind; the latency p50, p99 and max and
// the schedule lag max take the largest of the nodes' (as the storage fleet's windows merge
// their p99: the slowest node's; a max is exact, a percentile an upper bound of the union's).
std::vector<L2Window> merge_l2_timelines(const std::vector<const std::vector<L2Window>*>& parts);

}  // namespace fleet::l2replay
