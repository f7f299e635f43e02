// The log lines of a node's L2 failures, at a bounded rate: an adapter's first failure at once
// with its error text, then at most one line per interval saying what failed since the last
// line, and at the end of the run one line for what no line has reported yet. Never a line per
// failure: a dead Redis fails thousands of operations a second.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleet/stats/l2_failures.h"

namespace fleet::stats {

inline constexpr int64_t kL2FailureLogIntervalNs = 10'000'000'000;

class L2FailureLog {
 public:
  // `t0_ns`: T0 on the records' clock (lines say "+1.23 s" into the run); `prefix` starts every
  // line (a worker's name).
  explicit L2FailureLog(int64_t t0_ns, std::string prefix = "",
                        int64_t interval_ns = kL2FailureLogIntervalNs);

  // After `r` counted a failure. `now_ns` on a monotonic real clock: the interval is real time,
  // even when the run's clock is virtual. The line to log, if any.
  std::optional<std::string> on_failure(const L2FailureRecord& r, int64_t now_ns);
  // At the end of the run: the line for the failures of `r` that no line has reported yet.
  std::optional<std::string> finish(const L2FailureRecord& r);

 private:
  struct Logged {
    bool any = false;
    int64_t at_ns = 0;     // when the last line was logged
    L2FailureRecord seen;  // the record as the last line reported it
  };
  Logged& logged(const L2FailureRecord& r);
  std::string head(const L2FailureRecord& r) const;
  std::string seconds_into_run(int64_t ns) const;

  int64_t t0_ns_;
  std::string prefix_;
  int64_t interval_ns_;
  std::vector<Logged> adapters_;  // by adapter index
};

}  // namespace fleet::stats
