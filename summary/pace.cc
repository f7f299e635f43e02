#include "fleet/summary/pace.h"

namespace fleet::summary {

bool was_paced(const RunSummary& summary) {
  return summary.clock != "virtual" && summary.speed.value_or(1.0) != 0.0 &&
         summary.lateness.records > 0;
}

bool fell_behind(const RunSummary& summary) {
  const Lateness& late = summary.lateness;
  return was_paced(summary) && (late.p99 > 1000.0 || static_cast<double>(late.late_over_1ms) >
                                                         0.01 * static_cast<double>(late.records));
}

}  // namespace fleet::summary
