#include "fleet/insight/report/timeseries_sink.h"

#include <spdlog/spdlog.h>

#include <filesystem>

namespace fleet::report {

TimeseriesSink::TimeseriesSink(const std::string& output_dir) {
  auto csv = stats::TimeseriesCsvWriter::create(
      (std::filesystem::path(output_dir) / "fleet_timeseries.csv").string());
  if (csv) {
    csv_ = std::move(csv).value();
  } else {
    spdlog::warn("no time series: {}", csv.status().message());
  }
}

void TimeseriesSink::add(std::string_view node, const stats::RunWindow& w) {
  if (csv_) csv_->append(node, w);
  if (w.lookup_keys == 0) return;
  auto it = latest_.find(node);
  if (it == latest_.end()) it = latest_.emplace(std::string(node), w).first;
  it->second = w;
  uint64_t hit = 0, all = 0;
  for (const auto& [name, last] : latest_) {
    hit += last.l1_hit_keys + last.l2_hit_keys;
    all += last.lookup_keys;
  }
  hit_rate_.store(all ? static_cast<double>(hit) / static_cast<double>(all) : -1.0,
                  std::memory_order_relaxed);
}

}  // namespace fleet::report
