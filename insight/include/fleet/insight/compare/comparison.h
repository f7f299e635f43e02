// Two runs compared, A -> B: per op (the union of qualnames), the cache hit rates, lateness,
// records and throughput, and the engine config field by field. Built once, then written as
// the terminal table, compare.json and compare.html, and checked against --fail-on thresholds.
#pragma once

#include <string>
#include <vector>

#include "fleet/insight/compare/bootstrap.h"
#include "fleet/insight/compare/change.h"
#include "fleet/insight/compare/config_diff.h"
#include "fleet/insight/compare/run_snapshot.h"

namespace fleet::compare {

// A quantity under a stable name: `failed`, `p99`, `l1_hit_rate` (the names thresholds use).
struct NamedChange {
  std::string name;
  Change change;
};
// The entry named `name`, or nullptr.
const Change* find_change(const std::vector<NamedChange>& group, const std::string& name);

struct OpComparison {
  enum class Presence { kBoth, kRemoved, kAdded };  // removed: only in A; added: only in B
  std::string qualname;
  std::string short_name;  // as LMCache's terminal shows it: `read_prefetched_results.enter`
  Presence presence = Presence::kBoth;
  // count, errors (B's own values matter for these), then p50, p90, p99, mean in ms with their
  // bootstrap intervals when both runs have a histogram for the op.
  std::vector<NamedChange> stats;
  std::string ci_note;  // why the latency changes have no interval, when they have none
};

struct RunSide {
  std::string dir;
  bool partial = false;
  std::string partial_reason;
  std::string trace, clock, mode, engine, config_digest, digest_comparison;
  double speed = 0;
  int nodes = 0;
};

struct Comparison {
  RunSide a, b;
  BootstrapOptions bootstrap;
  std::vector<OpComparison> ops;  // sorted by qualname
  // l1_hit_rate, l2_hit_rate, l1_l2_hit_rate, miss_rate (fractions), then lookup_keys; empty
  // when neither run kept a cache.
  std::vector<NamedChange> cache;
  std::vector<NamedChange> lateness;  // p50, p99, max (µs), late_over_1ms (records)
  // Miss attribution (docs/causal-pacing.md): total, then by blame (compression, environment,
  // trace, follows), then only_this_run against each run's own --baseline; empty when neither
  // run classified its misses.
  std::vector<NamedChange> misses;
  // total, replayed, skipped, failed, duration_s, records_per_s
  std::vector<NamedChange> records;
  bool configs_present = false;  // both runs recorded engine.config
  std::vector<ConfigDifference> config;
};

Comparison compare_runs(const RunSnapshot& a, const RunSnapshot& b,
                        const BootstrapOptions& options);

}  // namespace fleet::compare
