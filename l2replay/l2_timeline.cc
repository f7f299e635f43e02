#include "fleet/l2replay/l2_timeline.h"

#include <algorithm>

#include "fleet/stats/percentile_rank.h"

namespace fleet::l2replay {

namespace {

// Nearest-rank percentile p of `v` (reordered), LMCache's rule as everywhere in Fleet.
int64_t percentile(std::vector<int64_t>& v, double p) {
  const auto k = static_cast<std::ptrdiff_t>(stats::nearest_rank(p, v.size()) - 1);
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[static_cast<size_t>(k)];
}

}  // namespace

L2TimelineSampler::L2TimelineSampler(int64_t start_ns)
    : start_ns_(start_ns), window_end_ns_(start_ns + stats::kRunWindowNs) {}

// Closes the window that ended and jumps to the one holding `now_ns`: the windows between held
// nothing (the storage replay's WindowSampler skips them the same way).
void L2TimelineSampler::close_until(int64_t now_ns) {
  close_current();
  const int64_t behind = (now_ns - window_end_ns_) / stats::kRunWindowNs;
  window_end_ns_ += (behind + 1) * stats::kRunWindowNs;
}

void L2TimelineSampler::close_current() {
  if (touched_) {
    cur_.index = (window_end_ns_ - start_ns_) / stats::kRunWindowNs - 1;
    for (size_t k = 0; k < kL2OpCount; ++k) {
      std::vector<int64_t>& v = latencies_[k];
      if (v.empty()) continue;
      L2WindowOp& w = cur_.ops[k];
      w.latency_p50_ns = percentile(v, 50);
      w.latency_p99_ns = percentile(v, 99);
      w.latency_max_ns = *std::max_element(v.begin(), v.end());
      v.clear();
    }
    windows_.push_back(cur_);
  }
  cur_ = L2Window{};
  touched_ = false;
}

std::vector<L2Window> L2TimelineSampler::finish() {
  close_current();
  return std::move(windows_);
}

}  // namespace fleet::l2replay
