#include "mrc/knees.h"

#include <algorithm>
#include <cmath>

namespace fleet::mrc {

namespace {
constexpr int kStepsPerDoubling = 16;
constexpr double kMinDrop = 1e-9;  // a flat curve has no knee
}  // namespace

std::vector<Knee> find_knees(const MissRatioCurve& curve, size_t count) {
  const uint64_t lo = 2 * curve.smallest_object(), hi = curve.working_set_bytes();
  std::vector<Knee> out;
  if (lo == 0 || hi < lo || count == 0) return out;
  size_t doublings = static_cast<size_t>(std::ceil(std::log2(static_cast<double>(hi) / lo)));
  std::vector<uint64_t> grid = log_spaced_sizes(lo, hi, doublings * kStepsPerDoubling + 1);

  std::vector<double> drop(grid.size());
  for (size_t i = 0; i < grid.size(); ++i) {
    drop[i] = curve.at(grid[i] / 2).miss_ratio - curve.at(grid[i]).miss_ratio;
  }
  std::vector<size_t> peaks;  // local maxima (the first point of a plateau)
  for (size_t i = 0; i < grid.size(); ++i) {
    bool left = i == 0 || drop[i] > drop[i - 1];
    bool right = i + 1 == grid.size() || drop[i] >= drop[i + 1];
    if (left && right && drop[i] > kMinDrop) peaks.push_back(i);
  }
  std::stable_sort(peaks.begin(), peaks.end(),
                   [&](size_t a, size_t b) { return drop[a] > drop[b]; });
  for (size_t i : peaks) {
    uint64_t size = std::max<uint64_t>(curve.step_at_or_below(grid[i]), 1);
    bool apart = std::all_of(out.begin(), out.end(), [&](const Knee& k) {
      double ratio = static_cast<double>(std::max(size, k.size_bytes)) /
                     static_cast<double>(std::min(size, k.size_bytes));
      return ratio >= 2.0;
    });
    if (!apart) continue;
    out.push_back({size, curve.at(size).miss_ratio, curve.at(size / 2).miss_ratio});
    if (out.size() == count) break;
  }
  return out;
}

}  // namespace fleet::mrc
