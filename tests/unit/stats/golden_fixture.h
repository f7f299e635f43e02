// The small collector behind the golden-output tests; the expected bytes were computed from
// docs/outputs.md's rules (and cross-checked once with CPython 3.11 running LMCache's own code
// paths).
#pragma once

#include <string>

#include "fleet/stats/stats_collector.h"

namespace fleet::stats::testing {

inline const std::string kSm = "lmcache.v1.distributed.storage_manager.StorageManager.";

inline StatsCollector golden_collector() {
  StatsCollector c;
  // Inserted out of order on purpose: output must be sorted by qualname.
  for (double v : {2.675, 1.0005, 3.14159}) c.record(kSm + "reserve_write", v, false);
  for (double v : {0.5, 0.25, 1.125, 0.0049996}) c.record(kSm + "finish_write", v, false);
  c.record(kSm + "finish_write", 9.0, true);  // failure: errors += 1, no sample
  c.record("weird,name\"x", 0.0, true);       // only failed: appears with zero stats
  for (double v : {0.0625, 0.0123456789})
    c.record(kSm + "read_prefetched_results.__enter__", v, false);
  c.record(kSm + "read_prefetched_results.__exit__", 0.01, false);
  return c;
}

}  // namespace fleet::stats::testing
