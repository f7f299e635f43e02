// How a run's L2 failures read for people: the terminal summary's rows (in its L2 section) and
// the sentence of the report's verdict, from the records merged over nodes (stats/l2_failures.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fleet/stats/l2_failures.h"
#include "fleet/stats/metrics_report.h"

namespace fleet::report {

// Per adapter: how many failed, by op kind, from when (on how many of `nodes`), the first and
// the latest error.
std::vector<stats::MetricRow> l2_failure_rows(const std::vector<stats::L2FailureRecord>& merged,
                                              size_t nodes);
// "3279 L2 operations failed on adapter 0 (resp) ...": one adapter, for the verdict.
std::string l2_failure_sentence(const stats::L2FailureRecord& merged, size_t nodes);

}  // namespace fleet::report
