#include "fleet/replay/l2_windows.h"

#include <map>
#include <string>

#include "fleet/stats/log_linear_histogram.h"

namespace fleet::replay {

namespace {
struct Bucket {
  uint64_t n = 0;
  uint64_t bytes = 0;
  stats::LogLinearHistogram latency;
};
}  // namespace

nlohmann::json summarize_l2_ops(const std::vector<engine::L2Op>& ops, int64_t t0_ns,
                                int64_t window_ns) {
  std::map<int64_t, std::map<std::string, Bucket>> windows;
  std::map<std::string, Bucket> totals;
  for (const auto& op : ops) {
    int64_t w = op.end_ns >= t0_ns ? (op.end_ns - t0_ns) / window_ns : -1;
    for (Bucket* b : {&windows[w][op.kind], &totals[op.kind]}) {
      ++b->n;
      b->bytes += op.bytes;
      b->latency.record(op.latency_ns);
    }
  }
  nlohmann::json out;
  out["window_s"] = static_cast<double>(window_ns) / 1e9;
  out["windows"] = nlohmann::json::array();
  for (const auto& [w, kinds] : windows) {
    nlohmann::json jw;
    jw["t"] = w;
    for (const auto& [kind, b] : kinds) {
      jw["ops"][kind] = {{"n", b.n},
                         {"bytes", b.bytes},
                         {"p50_us", static_cast<double>(b.latency.percentile(50)) / 1e3},
                         {"p99_us", static_cast<double>(b.latency.percentile(99)) / 1e3}};
    }
    out["windows"].push_back(jw);
  }
  out["totals"] = nlohmann::json::object();
  for (const auto& [kind, b] : totals) {
    out["totals"][kind] = {{"n", b.n}, {"bytes", b.bytes}, {"latency_ns", b.latency.to_json()}};
  }
  return out;
}

}  // namespace fleet::replay
