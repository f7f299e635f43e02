// --baseline RUN_DIR (docs/causal-pacing.md "Miss attribution"): the misses.csv of an earlier
// run of the same trace, read before this run starts (a missing or damaged file is an error
// naming the flag, not a surprise at the end), paired with this run's misses once it is done.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleet/stats/miss_attribution.h"
#include "fleet/stats/miss_summary.h"
#include "fleet/summary/run_report.h"
#include "fleet/util/status.h"

namespace fleet::session {

struct MissBaseline {
  std::string dir;
  std::vector<stats::MissEvent> events;
  // From DIR/fleet_summary.json when it reads (a misses.csv alone still pairs): the baseline's
  // p99 lateness when it was paced, and whether it fell behind (summary/pace.h).
  std::optional<double> lateness_p99_us;
  bool fell_behind = false;
  // Its misses section (the flags blame_of reads: sped up, engine on trace time, partial), to
  // blame the misses only it had as its own run did.
  std::optional<stats::MissSummary> misses;
  // With --noise-baseline: how far a second reference run's misses are from these.
  std::optional<stats::MissNoise> noise;
};

// `noise_dir` ("" = none): a second reference run (--noise-baseline), read the same way.
Result<std::shared_ptr<const MissBaseline>> load_miss_baseline(const std::string& dir,
                                                               const std::string& noise_dir = "");
// Sets report.miss_pairing when the run classified misses (any node has a summary).
void pair_with_baseline(report::RunReport& report, const MissBaseline& baseline);

}  // namespace fleet::session
