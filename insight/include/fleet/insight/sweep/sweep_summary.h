// The result of a --sweep: each variant's headline metrics read back from its own run directory
// (fleet_summary.json), the best variant by the goal, and the files that show them side by side:
// sweep.json, sweep.html and a terminal table (docs/sweep.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fleet/insight/sweep/sweep_spec.h"

namespace fleet::sweep {

struct VariantRun {
  Variant variant;
  std::string dir;
  int exit_code = 0;
  size_t wave = 0;  // variants of one wave ran at the same time and share a T0
};

struct VariantResult {
  VariantRun run;
  bool has_summary = false;
  bool partial = false;
  int64_t t0_mono_ns = 0;
  // "cache.l1_hit_rate", "cache.l1_l2_hit_rate", "records_per_s", "lateness.p99" (us),
  // "failed", "l2.ops", "l2.ops_per_s", "<short op>.p99" (ms), ...
  std::map<std::string, double> metrics;
};

struct SweepSummary {
  std::vector<SweepAxis> axes;
  std::vector<VariantResult> variants;
  std::optional<SweepGoal> goal;
  std::string best;         // label of the best variant by the goal, "" without one
  bool concurrent = false;  // variants ran at the same time on disjoint worker groups
  bool same_t0 = false;     // in every wave, its variants reported the same T0
  // `lct mrc --json` of the trace (--sweep-mrc): its L1 curve is drawn under the variants'
  // measured L1 hit rates when l1-size-gb is swept. Null when not given.
  nlohmann::json mrc;
};

SweepSummary summarize(const std::vector<SweepAxis>& axes, const std::vector<VariantRun>& runs,
                       const std::optional<SweepGoal>& goal, bool concurrent);
nlohmann::ordered_json sweep_json(const SweepSummary& s);
std::string render_sweep_table(const SweepSummary& s);
std::string render_sweep_html(const SweepSummary& s);
// sweep.json and sweep.html into `dir`; warns (does not throw) when a file cannot be written.
void write_sweep_outputs(const SweepSummary& s, const std::string& dir);

}  // namespace fleet::sweep
