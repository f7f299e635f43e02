// Dispatch lateness (actual - scheduled, signed ns) of one op or of a whole replay: the paced
// loop records one value per record; reports give p50/p99/max and how many were > 1 ms late.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "fleet/stats/log_linear_histogram.h"

namespace fleet::stats {

class LatenessStats {
 public:
  static constexpr int64_t kLateThresholdNs = 1'000'000;

  // Early dispatches (negative lateness) count as 0 in the histogram and are counted apart.
  void record(int64_t lateness_ns) {
    if (lateness_ns < 0) ++early_;
    if (lateness_ns > kLateThresholdNs) ++late_over_1ms_;
    if (hist_.count() == 0 || lateness_ns > max_) max_ = lateness_ns;
    hist_.record(lateness_ns);
  }
  void merge(const LatenessStats& other);

  uint64_t count() const { return hist_.count(); }
  uint64_t early_count() const { return early_; }
  uint64_t late_over_1ms() const { return late_over_1ms_; }
  int64_t max_ns() const { return hist_.count() ? max_ : 0; }  // signed: may be < 0
  // From the histogram: within 0.05 % of the exact nearest-rank value of max(0, x).
  int64_t p50_ns() const { return hist_.percentile(50); }
  int64_t p99_ns() const { return hist_.percentile(99); }
  int64_t percentile_ns(double p) const { return hist_.percentile(p); }
  const LogLinearHistogram& histogram() const { return hist_; }

  nlohmann::json to_json() const;
  static LatenessStats from_json(const nlohmann::json& j);

 private:
  LogLinearHistogram hist_;
  uint64_t early_ = 0;
  uint64_t late_over_1ms_ = 0;
  int64_t max_ = 0;
};

}  // namespace fleet::stats
