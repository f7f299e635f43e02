// A run's result as fleet_summary.json holds it (docs/outputs.md), as plain values: what the
// run writes (run_summary_json.h: one writer) and what report.html, compare, the sweep and the
// contention view read back (one reader), so a renamed field is a compile error, not a "—".
// Free-form parts (the engine's config and counters, the plan, the coordinator's costs) stay
// JSON: they are drawn or diffed as they are; what the readers need of them is typed beside.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/causal/pacing_stats.h"
#include "fleet/stats/l2_failures.h"
#include "fleet/stats/log_linear_histogram.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/stats/op_stats.h"

namespace fleet::summary {

struct RecordCounts {
  uint64_t total = 0, replayed = 0, skipped = 0, failed = 0;
};

// Dispatch lateness in µs (`lateness_us`).
struct Lateness {
  uint64_t records = 0;
  double p50 = 0, p99 = 0, max = 0;
  uint64_t late_over_1ms = 0, feed_late = 0, engine_late = 0;
};

using OpStatsByName = std::map<std::string, stats::OpSummary>;  // `ops`, LMCache's fields

// [[x, fraction], ...]: an op's latency CDF (ms) or the lateness CDF (µs).
using Cdf = std::vector<std::pair<double, double>>;

// One op's merged latency histogram, or why the file's could not be decoded (compare names it).
struct OpHistogram {
  std::optional<stats::LogLinearHistogram> histogram;
  std::string error;
};

struct TraceSummary {
  std::string path, level, header_digest;
  std::optional<int64_t> schema;
  uint64_t malformed_frames_dropped = 0;
  bool truncated_tail = false;
};

// What the readers use of one L2 adapter's counters (`engine.counters.l2_adapters[i]`).
struct AdapterCounters {
  std::string type;
  uint64_t store_tasks = 0, store_failed_tasks = 0, load_keys = 0, load_hit_keys = 0;
  bool eviction_enabled = false;
  int64_t evicted_keys = 0;
};

// What the readers use of a node's engine counters; the counters themselves stay JSON.
struct CounterView {
  std::string lost_reason;                             // a lost node: why
  std::optional<uint64_t> records_confirmed_finished;  // a lost node: PROGRESS confirmed
  std::vector<AdapterCounters> l2_adapters;
  int64_t prefetch_l1_hit_keys = 0, prefetch_l1_miss_keys = 0, l2_lookup_keys = 0,
          l2_lookup_found_keys = 0, l2_store_failed_tasks = 0;
};
CounterView counter_view(const nlohmann::json& counters);

struct NodeSummary {
  std::string name, address, status;
  RecordCounts records;
  uint64_t records_received = 0;
  double duration_s = 0;
  Lateness lateness;
  OpStatsByName ops;
  std::string engine_name, config_digest;
  nlohmann::json counters = nlohmann::json::object();
  CounterView counter;  // counter_view(counters)
  double clock_offset_us = 0, clock_uncertainty_us = 0, start_skew_us = 0;
  uint64_t read_exits_without_enter = 0, dangling_read_contexts_closed = 0;
  std::vector<stats::L2FailureRecord> l2_failures;
  std::optional<causal::PacingStats> pacing;  // runs that tracked dependency edges
};

// The run's engine (`engine`); absent when the run had no node.
struct EngineSummary {
  std::string name, config_digest;
  nlohmann::json config;    // the StorageManagerConfig dict, diffed field by field by compare
  nlohmann::json counters;  // one node: its counters; a fleet: {}
};

struct KeyBytes {
  uint64_t keys = 0, bytes = 0;
};

struct AdapterHits {
  KeyBytes served;
  uint64_t adapter = 0;
  std::string type;
};

// `cache.lookup` and `cache.warm`.
struct PrefetchSummary {
  KeyBytes requested, l1, l2;
  std::vector<AdapterHits> l2_by_adapter;
  KeyBytes missed, not_found, load_failed, trimmed, abandoned, in_flight;
  double l1_hit_rate = 0, l2_hit_rate = 0, l1_l2_hit_rate = 0, miss_rate = 0,
         byte_l1_l2_hit_rate = 0;
};

struct NodeHitRates {
  std::string name;
  uint64_t lookup_keys = 0;
  double l1_hit_rate = 0, l2_hit_rate = 0, l1_l2_hit_rate = 0, miss_rate = 0;
};

// `cache`: the cache outcome merged over nodes (when the engine keeps one).
struct CacheSummary {
  PrefetchSummary lookup, warm;
  KeyBytes reserved, refused_oom, evicted;
  uint64_t not_writable_keys = 0, stored_keys = 0;
  std::vector<NodeHitRates> per_node;
};

// `contention`: L2 operations merged over nodes and per 1-second window.
struct ContentionSummary {
  struct Op {
    uint64_t n = 0, bytes = 0;
    double ops_per_s = 0, p50_us = 0, p99_us = 0;
  };
  struct WindowOp {
    uint64_t n = 0;
    double p99_us = 0;
  };
  struct Window {
    int64_t t = 0;
    std::optional<double> fairness;
    std::vector<std::pair<std::string, std::map<std::string, WindowOp>>> nodes;  // node order
  };
  double window_s = 1.0;
  std::map<std::string, Op> per_op;                      // by kind: store, lookup, load
  std::vector<std::pair<std::string, double>> per_node;  // L2 ops, in node order
  std::optional<double> fairness;                        // Jain's index; null when undefined
  std::vector<Window> windows;
  // The node's L2 ops, or nullopt when it is not listed.
  std::optional<double> node_ops(const std::string& name) const;
};

// What readers use of `coordinator` (fleet runs); the object itself is kept in `extra`.
struct CoordinatorView {
  int64_t t0_mono_ns = 0;
  nlohmann::json start;       // the T0 decision (protocol.md § 3), or null
  nlohmann::json route_plan;  // what --route-cache did, or null
};
// From the summary's extra keys (`coordinator` among them).
CoordinatorView coordinator_view(const nlohmann::json& extra);

struct RunSummary {
  RecordCounts records;
  double duration_s = 0;
  std::optional<double> speed;  // the page reads a missing speed as 1
  std::string clock, mode;
  bool stopped_early = false;
  Lateness lateness;
  // Dependency edges and what the pacing did with them, merged over nodes (causal pacing, or
  // uniform faster than 1x): `pacing` after `lateness_us`, only then.
  std::optional<causal::PacingStats> pacing;
  // Why keys missed (docs/causal-pacing.md "Miss attribution"), after `pacing`, only then.
  std::optional<stats::MissSummary> misses;
  OpStatsByName ops;
  std::optional<EngineSummary> engine;
  std::string digest_comparison;
  TraceSummary trace;
  std::vector<NodeSummary> nodes;
  nlohmann::json plan = nlohmann::json::object();  // the shard plan (fleet runs), as written
  std::optional<ContentionSummary> contention;
  std::vector<stats::L2FailureRecord> l2_failures;  // merged over nodes
  std::string l2_failures_error;                    // the file's could not be read: why
  std::optional<CacheSummary> cache;
  std::map<std::string, Cdf> latency_cdf_ms;
  std::map<std::string, OpHistogram> latency_histograms_ns;
  Cdf lateness_cdf_us;
  nlohmann::ordered_json accounting;  // where every record went (summary/accounting.h); or null
  // Keys after `accounting`, in order: `coordinator` (fleet runs) and whatever a newer Fleet adds.
  nlohmann::json extra = nlohmann::json::object();
  CoordinatorView coordinator;  // coordinator_view(extra)
};

}  // namespace fleet::summary
