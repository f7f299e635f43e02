// trace_replay_ops.csv exactly as LMCache writes it with Python's csv.writer (excel dialect):
// minimal quoting, doubled quotes, CRLF after every row (docs/trace-format.md §6.2).
#pragma once

#include <string>
#include <string_view>

#include "fleet/stats/stats_collector.h"

namespace fleet::stats {

// Header `qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms`, then one row per
// qualname in code-point order, latencies "%.6f".
std::string render_ops_csv(const StatsCollector& stats);

// One field with csv.QUOTE_MINIMAL: quoted iff it contains `,` `"` CR or LF.
void append_csv_field(std::string& out, std::string_view field);

}  // namespace fleet::stats
