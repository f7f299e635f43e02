// A run's misses by class, their blame, and (with --baseline) how they pair with a baseline
// run's: in fleet_summary.json and DONE as "misses" (docs/causal-pacing.md "Miss attribution").
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/stats/miss_attribution.h"

namespace fleet::stats {

// Run-to-run noise, from a second reference run of the same trace and config
// (--noise-baseline): how far the baseline's misses are from the second's, per where, and how
// many misses only one of the two had. The verdict's tolerance for "the same answer" becomes
// twice the difference (issue 40's rule: within 2 x the difference between two 1x runs), never
// below its 1 %.
struct MissNoise {
  std::string run;        // the second reference run's directory, as given
  uint64_t prefetch = 0;  // |baseline - second| prefetch misses
  uint64_t read = 0;      // |baseline - second| read misses
  uint64_t traded = 0;    // misses only one of the two had (key by key)
};

// The misses of this run and of a baseline run of the same trace, paired by (record, key,
// where) as multisets: in both, only in this run (by this run's class), only in the baseline
// (by the baseline's class).
struct MissPairing {
  std::string baseline;  // the baseline run directory, as given
  uint64_t both = 0;
  MissCounts only_this_run{};
  MissCounts only_baseline{};
  // The baseline's own pace, from its fleet_summary.json (absent when it has none, or ran
  // unpaced): a 1x baseline that fell behind its recording missed keys for its backend's or
  // CPU's sake, not only the trace's, and the pairing says so (summary/pace.h's rule).
  std::optional<double> baseline_lateness_p99_us;
  bool baseline_fell_behind = false;
  // The misses only the baseline had, blamed as the baseline's own run blames them (blame_of
  // with its flags, from its fleet_summary.json; absent without one). At 1x a timing miss (a
  // load still running, a store not landed) is the environment's: a backend or CPU slower than
  // the recorded one, which a causal run waits for and a 1x run does not.
  std::optional<std::array<uint64_t, kMissBlameCount>> only_baseline_blame;
  std::optional<MissNoise> noise;  // with --noise-baseline

  uint64_t only_this_run_total() const;
  uint64_t only_baseline_total() const;
};

struct MissSummary {
  // Every event a node may keep for pairing and misses.csv; beyond it misses are still counted
  // by class, and `dropped` says how many are missing from the log.
  static constexpr size_t kMaxLoggedEvents = 2'000'000;

  bool sped_up = false;               // the run was paced faster than recorded (S > 1 or S = 0)
  bool engine_follows_trace = false;  // the eviction tick and TTLs ran on trace time
  bool partial_schedule = false;      // causal pacing's partial schedule (blame_of)
  MissCounts counts{};
  uint64_t dropped = 0;
  std::optional<MissPairing> baseline;

  void add(const MissEvent& e) {
    ++counts[static_cast<size_t>(e.where)][static_cast<size_t>(e.cls)];
  }
  uint64_t total(MissWhere w) const;
  uint64_t total() const { return total(MissWhere::Prefetch) + total(MissWhere::Read); }
  std::array<uint64_t, kMissBlameCount> blame() const;  // every miss, by blame_of
  // Counts and drops add; the flags are the nodes' (all nodes run alike).
  void merge(const MissSummary& o);

  nlohmann::json to_json() const;
  // The nested readers throw std::invalid_argument naming the field (util/json_number.h): the
  // DONE decoder turns it into a ProtocolError naming the peer, fleet_summary.json's reader
  // into an absent section.
  static MissSummary from_json(const nlohmann::json& j);
};

// Pairs `run` with `baseline` (each sorted by sort_misses). Both are consumed.
MissPairing pair_misses(std::vector<MissEvent> run, std::vector<MissEvent> baseline);
void sort_misses(std::vector<MissEvent>& events);
// How far two reference runs' misses are apart (`run` names the second).
MissNoise miss_noise(std::vector<MissEvent> baseline, std::vector<MissEvent> second,
                     std::string run);

}  // namespace fleet::stats
