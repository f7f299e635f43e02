#include "fleet/stats/percentile_rank.h"

#include <cmath>

namespace fleet::stats {

uint64_t nearest_rank(double p, uint64_t n) {
  if (n == 0) return 0;
  if (!(p > 0)) return 1;  // also NaN: LMCache compares pct <= 0 first; NaN is never passed
  if (p >= 100) return n;
  uint64_t rank;
  if (p == std::floor(p)) {
    // ceil(p*n/100) without rounding: 128-bit so that no n can overflow.
    const unsigned __int128 num = static_cast<unsigned __int128>(static_cast<uint64_t>(p)) * n;
    rank = static_cast<uint64_t>((num + 99) / 100);
  } else {
    // The same double expression as LMCache's math.ceil(pct * n / 100.0).
    rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(n) / 100.0));
  }
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return rank;
}

}  // namespace fleet::stats
