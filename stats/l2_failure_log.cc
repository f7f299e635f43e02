#include "fleet/stats/l2_failure_log.h"

#include <cstdio>
#include <utility>

namespace fleet::stats {

namespace {

std::string fixed(double v, const char* format) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

// What failed between two states of one adapter's record.
L2FailureRecord difference(const L2FailureRecord& now, const L2FailureRecord& before) {
  L2FailureRecord d = now;
  d.failed = now.failed - before.failed;
  for (size_t k = 0; k < d.by_op.size(); ++k) d.by_op[k] = now.by_op[k] - before.by_op[k];
  return d;
}

}  // namespace

L2FailureLog::L2FailureLog(int64_t t0_ns, std::string prefix, int64_t interval_ns)
    : t0_ns_(t0_ns), prefix_(std::move(prefix)), interval_ns_(interval_ns) {}

L2FailureLog::Logged& L2FailureLog::logged(const L2FailureRecord& r) {
  const auto i = static_cast<size_t>(r.adapter < 0 ? 0 : r.adapter);
  if (adapters_.size() <= i) adapters_.resize(i + 1);
  return adapters_[i];
}

std::string L2FailureLog::seconds_into_run(int64_t ns) const {
  return fixed(static_cast<double>(ns - t0_ns_) / 1e9, "+%.2f s");
}

std::string L2FailureLog::head(const L2FailureRecord& r) const {
  return prefix_ + "L2 adapter " + std::to_string(r.adapter) + " (" + r.type + "): ";
}

std::optional<std::string> L2FailureLog::on_failure(const L2FailureRecord& r, int64_t now_ns) {
  Logged& l = logged(r);
  if (!l.any) {
    l = {true, now_ns, r};
    return head(r) + r.ops_text() + " failed at " + seconds_into_run(r.first_ns) + ": " +
           r.first_error + " (further failures: one line per " +
           fixed(static_cast<double>(interval_ns_) / 1e9, "%.0f") + " s)";
  }
  if (now_ns - l.at_ns < interval_ns_) return std::nullopt;
  const L2FailureRecord d = difference(r, l.seen);
  std::string line = head(r) + std::to_string(d.failed) + " more failed in " +
                     fixed(static_cast<double>(now_ns - l.at_ns) / 1e9, "%.1f s") + " (" +
                     d.ops_text() + "); " + std::to_string(r.failed) + " since " +
                     seconds_into_run(r.first_ns) + "; latest: " + r.last_error;
  l = {true, now_ns, r};
  return line;
}

std::optional<std::string> L2FailureLog::finish(const L2FailureRecord& r) {
  Logged& l = logged(r);
  if (r.failed == 0 || (l.any && l.seen.failed == r.failed)) return std::nullopt;
  const L2FailureRecord d = difference(r, l.any ? l.seen : L2FailureRecord{});
  std::string line = head(r) + std::to_string(d.failed) + (l.any ? " more" : "") +
                     " failed by the end of the run (" + d.ops_text() + "); " +
                     std::to_string(r.failed) + " in all from " + seconds_into_run(r.first_ns) +
                     "; first error: " + r.first_error + "; latest: " + r.last_error;
  l = {true, l.at_ns, r};
  return line;
}

}  // namespace fleet::stats
