// fleet_timeseries.csv (docs/outputs.md): one CRLF row per window per node, appended while the
// run goes on and flushed every row, so a run cut short (Ctrl-C, a lost node) leaves every
// window it received on disk.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/stats/run_window.h"
#include "fleet/util/status.h"

namespace fleet::stats {

class TimeseriesCsvWriter {
 public:
  static constexpr std::string_view kHeader =
      "window_start_s,node,records,records_per_s,failed,skipped,paced,lateness_p50_us,"
      "lateness_p99_us,lateness_max_us,lookup_keys,l1_hit_keys,l2_hit_keys,missed_keys,"
      "l1_hit_rate,l1_l2_hit_rate,miss_rate,lookup_bytes,l1_hit_bytes,l2_hit_bytes,stored_keys,"
      "evicted_keys,refused_oom_keys,l2_ops,l2_failed,l2_bytes,l2_p99_us";

  // Creates (truncates) `path` and writes the header, or an error naming the path.
  static Result<std::unique_ptr<TimeseriesCsvWriter>> create(const std::string& path);
  ~TimeseriesCsvWriter();
  TimeseriesCsvWriter(const TimeseriesCsvWriter&) = delete;
  TimeseriesCsvWriter& operator=(const TimeseriesCsvWriter&) = delete;

  void append(std::string_view node, const RunWindow& w);
  uint64_t rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  TimeseriesCsvWriter(const std::string& path, std::FILE* f);
  std::string path_;
  std::FILE* f_ = nullptr;
  std::string line_;
  uint64_t rows_ = 0;
};

// One parsed row (the report and `coordinator report` read the file back).
struct TimeseriesRow {
  std::string node;
  RunWindow w;
};
// What a fleet_timeseries.csv holds: the rows that parse, and how many did not (a file cut
// mid-row by a crash ends in one).
struct TimeseriesFile {
  std::vector<TimeseriesRow> rows;
  size_t bad_rows = 0;
};
// Reads `path`; an error naming it when the file cannot be opened or its header is not ours.
Result<TimeseriesFile> read_timeseries_csv(const std::string& path);

}  // namespace fleet::stats
