// The cache outcome of a run, per node and merged (docs/outputs.md § Cache): each node's engine
// counters carry an engine::CacheOutcome as "cache"; this turns them into hit rates, the
// `cache` object of fleet_summary.json and the terminal's Cache section.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/engine/cache_outcome.h"
#include "fleet/stats/metrics_report.h"
#include "fleet/summary/run_report.h"
#include "fleet/summary/run_summary.h"

namespace fleet::report {

// One node's outcome from its engine counters; nullopt when the engine keeps none (noop, a
// lost node).
std::optional<engine::CacheOutcome> cache_outcome_of(const nlohmann::json& engine_counters);

struct HitRates {
  double l1 = 0.0, l2 = 0.0, l1_l2 = 0.0, miss = 0.0;  // fractions of requested keys
};
HitRates hit_rates(const engine::PrefetchOutcome& p);

struct RunCache {
  engine::CacheOutcome merged;
  std::vector<std::string> adapter_types;  // "mock", "fs", "resp", ... by adapter index
  struct Node {
    std::string name;
    engine::CacheOutcome outcome;
  };
  std::vector<Node> nodes;  // nodes that reported one
};
std::optional<RunCache> run_cache(const RunReport& report);

summary::CacheSummary cache_summary(const RunCache& c);  // the summary's `cache`
stats::MetricSection cache_section(const RunCache& c);

}  // namespace fleet::report
