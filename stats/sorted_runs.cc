#include "fleet/stats/sorted_runs.h"

#include <algorithm>
#include <limits>

#include "fleet/stats/double_order.h"

namespace fleet::stats {

namespace {

// Up to kFanIn ascending runs merged into `out` by picking the least head each time: for a
// handful of runs a scan of the heads beats a heap by several times (measured: the heap cost
// ~170 instructions per sample for 4 nodes).
constexpr std::size_t kFanIn = 8;

void merge_few_runs(std::span<const std::span<const double>> runs, util::HugeVector<double>& out) {
  const double* head[kFanIn];
  const double* end[kFanIn];
  std::size_t k = 0;
  for (const auto& r : runs) {
    if (r.empty()) continue;
    head[k] = r.data();
    end[k] = r.data() + r.size();
    ++k;
  }
  while (k > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < k; ++i)
      if (*head[i] < *head[best]) best = i;
    out.push_back(*head[best]++);
    if (head[best] == end[best]) {  // run done: close the gap, keeping the others' order
      for (std::size_t i = best + 1; i < k; ++i) {
        head[i - 1] = head[i];
        end[i - 1] = end[i];
      }
      --k;
    }
  }
  if (k == 1) out.insert(out.end(), head[0], end[0]);
}

}  // namespace

// Groups of kFanIn runs are merged into temporaries, then the groups, so each sample is
// written log_8(runs) times.
void merge_sorted_runs(std::span<const std::span<const double>> runs,
                       util::HugeVector<double>& out) {
  if (runs.size() <= kFanIn) {
    merge_few_runs(runs, out);
    return;
  }
  std::vector<util::HugeVector<double>> groups;
  for (std::size_t i = 0; i < runs.size(); i += kFanIn) {
    const auto part = runs.subspan(i, std::min(kFanIn, runs.size() - i));
    std::size_t n = 0;
    for (const auto& r : part) n += r.size();
    groups.emplace_back().reserve(n);
    merge_few_runs(part, groups.back());
  }
  std::vector<std::span<const double>> merged(groups.begin(), groups.end());
  merge_sorted_runs(merged, out);
}

double select_rank(std::span<const std::span<const double>> runs, uint64_t rank) {
  double lo_v = std::numeric_limits<double>::infinity(), hi_v = -lo_v;
  for (const auto& r : runs) {
    if (r.empty()) continue;
    lo_v = std::min(lo_v, r.front());
    hi_v = std::max(hi_v, r.back());
  }
  // The least key whose value has at least `rank` samples at or below it is the rank-th one.
  uint64_t lo = order_key(lo_v), hi = order_key(hi_v);
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    const double v = from_order_key(mid);
    uint64_t at_or_below = 0;
    for (const auto& r : runs)
      at_or_below += static_cast<uint64_t>(std::upper_bound(r.begin(), r.end(), v) - r.begin());
    if (at_or_below >= rank) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  // That value as a run holds it (-0.0 and 0.0 compare equal but print differently).
  const double v = from_order_key(lo);
  for (const auto& r : runs) {
    auto it = std::lower_bound(r.begin(), r.end(), v);
    if (it != r.end() && *it == v) return *it;
  }
  return v;
}

}  // namespace fleet::stats
