// The "Trace Replay Result" summary of `lmcache trace replay` (Overall + Per-Op Latency (ms)),
// built as MetricSections so the replay can render it for the terminal or as --format json,
// with Fleet's extra sections appended after LMCache's two.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/stats/metrics_report.h"
#include "fleet/stats/stats_collector.h"

namespace fleet::stats {

inline constexpr const char* kReplayResultTitle = "Trace Replay Result";

// The ReplayResult fields the summary shows.
struct ReplayOverview {
  std::optional<std::string> level;  // header level; nullopt => "N/A"
  uint64_t replayed = 0;
  uint64_t skipped = 0;
  uint64_t failed = 0;
  double duration_s = 0.0;    // unrounded; rounded to 3 decimals here
  std::string header_digest;  // sm_config_digest from the trace header ("" = absent)
  std::string replay_digest;  // digest of the replay-side config ("" = absent)
};

// `...StorageManager.finish_write` -> `finish_write`;
// `...read_prefetched_results.__enter__` -> `read_prefetched_results.enter`.
std::string short_op_name(std::string_view qualname);

// "MISMATCH (rec=xxxxxxxx, run=yyyyyyyy)", "match (xxxxxxxx)", or nullopt (row omitted).
std::optional<std::string> digest_row_value(const std::string& header_digest,
                                            const std::string& replay_digest);

// [Overall, Per-Op Latency (ms) (only when stats is non-empty)].
std::vector<MetricSection> replay_result_sections(const ReplayOverview& overview,
                                                  const StatsCollector& stats);

std::string render_replay_terminal(const ReplayOverview& overview, const StatsCollector& stats,
                                   const std::vector<MetricSection>& extra_sections = {});
std::string render_replay_json(const ReplayOverview& overview, const StatsCollector& stats,
                               const std::vector<MetricSection>& extra_sections = {});

}  // namespace fleet::stats
