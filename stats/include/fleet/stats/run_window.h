// One 1-second window of one node's run: what it dispatched, how late, what the cache did and
// how its L2 behaved (a row of fleet_timeseries.csv, docs/outputs.md). Workers send their
// windows with PROGRESS, so the coordinator writes the time series while the run goes on and
// keeps nothing of it in memory.
#pragma once

#include <cstdint>
#include <msgpack.hpp>
#include <string>

namespace fleet::stats {

inline constexpr int64_t kRunWindowNs = 1'000'000'000;

struct RunWindow {
  int64_t index = 0;  // the window starts `index` seconds after T0
  uint64_t records = 0, failed = 0, skipped = 0;
  // Dispatch lateness of the window's paced records (from a histogram, ≤ 0.05 % error).
  uint64_t paced = 0;
  int64_t lateness_p50_ns = 0, lateness_p99_ns = 0, lateness_max_ns = 0;
  // LOOKUP prefetch keys whose fate was decided in the window (engine::CacheOutcome deltas).
  uint64_t lookup_keys = 0, l1_hit_keys = 0, l2_hit_keys = 0, missed_keys = 0;
  uint64_t lookup_bytes = 0, l1_hit_bytes = 0, l2_hit_bytes = 0;
  uint64_t stored_keys = 0, evicted_keys = 0, refused_oom_keys = 0;
  // L2 operations completed in the window, every adapter and kind.
  uint64_t l2_ops = 0, l2_failed = 0, l2_bytes = 0;
  int64_t l2_p99_ns = 0;

  MSGPACK_DEFINE_ARRAY(index, records, failed, skipped, paced, lateness_p50_ns, lateness_p99_ns,
                       lateness_max_ns, lookup_keys, l1_hit_keys, l2_hit_keys, missed_keys,
                       lookup_bytes, l1_hit_bytes, l2_hit_bytes, stored_keys, evicted_keys,
                       refused_oom_keys, l2_ops, l2_failed, l2_bytes, l2_p99_ns);
};

// Share of decided lookup keys served from L1 / L1 or L2; 0 when nothing was decided.
double l1_hit_rate(const RunWindow& w);
double l1_l2_hit_rate(const RunWindow& w);

}  // namespace fleet::stats
