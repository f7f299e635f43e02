// The cluster-scale L2 contention view: per 1-second window of the run, each node's L2
// operations and latency p99, and Jain's fairness index of L2 operations across nodes; plus
// whole-run per-op L2 latency merged exactly from every node's histograms.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fleet/summary/run_report.h"
#include "fleet/summary/run_summary.h"

namespace fleet::report {

// Jain's fairness index (sum x)^2 / (n * sum x^2) in (0, 1]; 1 when all equal. Returns a
// negative value when every x is 0 (undefined).
double jain_index(const std::vector<double>& xs);

// The summary's `contention` from every node's L2 windows; nullopt when no node reported L2
// operations.
std::optional<summary::ContentionSummary> contention_summary(const RunReport& report);
// fleet_l2_windows.csv: window_start_s,node,op,count,bytes,p50_us,p99_us,fairness
std::string render_l2_windows_csv(const RunReport& report);

}  // namespace fleet::report
