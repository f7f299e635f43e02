// The report page's data ("report model", docs/report.md) built from what a run's files hold
// (a finishing run passes its summary in hand instead of re-reading it), so a finished run and
// `coordinator report DIR` (also on a partial run) draw the same page:
// fleet_summary.json (totals, nodes, ops and their CDFs, cache, contention) and
// fleet_timeseries.csv (every node's 1-second windows). Series are bounded for big runs: the
// top nodes by records plus "others", at most kMaxSeriesPoints points each with every bucket's
// min and max kept.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/stats/timeseries_csv.h"
#include "fleet/summary/run_summary.h"
#include "fleet/util/status.h"

namespace fleet::report::html {

inline constexpr size_t kMaxSeriesPoints = 1000;
inline constexpr size_t kTopNodes = 8;

struct RunFiles {
  std::string dir;
  std::optional<summary::RunSummary> summary;  // fleet_summary.json
  std::vector<stats::TimeseriesRow> windows;   // fleet_timeseries.csv
  std::vector<std::string> problems;           // what was missing or damaged, for the page
};

// An error naming the directory when it holds neither file. `summary`, when given, is taken
// as fleet_summary.json's content instead of reading the file.
Result<RunFiles> load_run_files(const std::string& dir,
                                std::optional<summary::RunSummary> summary = std::nullopt);
nlohmann::json build_report_model(const RunFiles& files);

using Points = std::vector<std::pair<double, double>>;
// At most max_points points: when longer, each of max_points/2 buckets keeps its minimum and
// its maximum (in time order), so spikes survive.
Points downsample_min_max(const Points& in, size_t max_points = kMaxSeriesPoints);

}  // namespace fleet::report::html
