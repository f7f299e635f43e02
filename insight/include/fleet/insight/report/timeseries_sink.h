// Where a run's windows go as they arrive (embedded: from the replay thread; fleet: from each
// worker's PROGRESS): fleet_timeseries.csv, plus the current hit rate for the live line. Keeps
// only the latest window per node, so memory follows the number of nodes, not the run.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "fleet/stats/timeseries_csv.h"

namespace fleet::report {

class TimeseriesSink {
 public:
  // Creates DIR/fleet_timeseries.csv; if it cannot, warns once and only tracks the live rate.
  explicit TimeseriesSink(const std::string& output_dir);
  void add(std::string_view node, const stats::RunWindow& w);
  // Hit rate (L1 + L2) over each node's latest window with lookups; < 0 before any. Any thread.
  double current_hit_rate() const { return hit_rate_.load(std::memory_order_relaxed); }
  uint64_t rows() const { return csv_ ? csv_->rows() : 0; }

 private:
  std::unique_ptr<stats::TimeseriesCsvWriter> csv_;
  std::map<std::string, stats::RunWindow, std::less<>> latest_;
  std::atomic<double> hit_rate_{-1.0};
};

}  // namespace fleet::report
