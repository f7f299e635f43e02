// A latency distribution as a bounded list of CDF points (the report's CDF charts, drawn from a
// run's files): the exact samples read at a fixed grid of fractions, dense in the tail, however
// many samples there are. Storage runs (insight's latency_cdf.h) and L2 replays use the same.
#pragma once

#include <utility>
#include <vector>

#include "fleet/stats/op_stats.h"

namespace fleet::stats {

// 1 %, 2 %, ... 100 %, plus 99.1 % ... 99.9 % and 99.99 %, ascending.
const std::vector<double>& cdf_fractions();

// [[latency_ms, fraction], ...] of `op`'s exact samples (nearest rank: the ceil(f*n)-th), one
// point per fraction; empty without samples. Sorts the samples (as OpStats::summary does).
std::vector<std::pair<double, double>> latency_cdf_points(const OpStats& op);

}  // namespace fleet::stats
