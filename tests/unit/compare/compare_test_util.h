// A small fleet_summary.json for the compare tests: ops with their histograms, a cache, records,
// lateness and an engine config, each adjustable by the test.
#pragma once

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "fleet/insight/compare/run_snapshot.h"
#include "fleet/stats/log_linear_histogram.h"
#include "fleet/summary/run_summary_json.h"

namespace fleet::compare::testing {

inline const std::string kFinishWrite =
    "lmcache.v1.distributed.storage_manager.StorageManager.finish_write";
inline const std::string kEnter =
    "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__enter__";

// An op of n calls with latencies around `median_ms`: its `ops` entry (from the histogram, so
// the two agree) and its histogram.
inline void add_op(nlohmann::json& summary, const std::string& qualname, int n, double median_ms,
                   uint64_t seed, int errors = 0) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median_ms * 1e6), 0.4);
  stats::LogLinearHistogram h;
  for (int i = 0; i < n; ++i) h.record(static_cast<int64_t>(d(rng)));
  summary["ops"][qualname] = {{"count", n},
                              {"errors", errors},
                              {"mean_ms", h.mean() / 1e6},
                              {"p50_ms", h.percentile(50) / 1e6},
                              {"p90_ms", h.percentile(90) / 1e6},
                              {"p99_ms", h.percentile(99) / 1e6},
                              {"min_ms", h.min() / 1e6},
                              {"max_ms", h.max() / 1e6}};
  summary["latency_histograms_ns"][qualname] = h.to_json();
}

inline nlohmann::json summary(double l1_size_gb = 1, uint64_t l1_keys = 100, uint64_t failed = 0) {
  nlohmann::json s;
  s["records"] = {{"total", 1000}, {"replayed", 1000 - failed}, {"skipped", 0}, {"failed", failed}};
  s["duration_s"] = 10.0;
  s["stopped_early"] = false;
  s["clock"] = "virtual";
  s["mode"] = "embedded";
  s["speed"] = 1.0;
  s["lateness_us"] = {
      {"records", 1000}, {"p50", 5.0}, {"p99", 40.0}, {"max", 900.0}, {"late_over_1ms", 0}};
  const uint64_t requested = 1000, l2 = 50, missed = requested - l1_keys - l2;
  s["cache"]["lookup"] = {
      {"requested", {{"keys", requested}}},
      {"l1", {{"keys", l1_keys}}},
      {"l2", {{"keys", l2}}},
      {"missed", {{"keys", missed}}},
      {"l1_hit_rate", l1_keys / 1000.0},
      {"l2_hit_rate", l2 / 1000.0},
      {"l1_l2_hit_rate", (l1_keys + l2) / 1000.0},
      {"miss_rate", missed / 1000.0},
  };
  s["engine"] = {{"name", "native"},
                 {"config_digest", l1_size_gb == 1 ? "aaaaaaaa11111111" : "bbbbbbbb22222222"},
                 {"config",
                  {{"l1_manager_config", {{"memory_config", {{"size_in_gb", l1_size_gb}}}}},
                   {"l2_adapter_config", {{"adapters", {{{"type", "mock"}}}}}}}}};
  s["nodes"] = {{{"name", "local"}, {"status", "ok"}}};
  return s;
}

inline RunSnapshot snapshot(nlohmann::json s, const std::string& dir) {
  RunSnapshot r;
  r.dir = dir;
  r.summary = summary::from_json(s);
  mark_partial(r);
  return r;
}

}  // namespace fleet::compare::testing
