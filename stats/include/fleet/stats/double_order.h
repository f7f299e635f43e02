// An order-preserving map of doubles onto uint64 (the IEEE bits, negatives flipped): a < b as
// doubles (NaN-free) implies key(a) < key(b), -0.0 maps just below 0.0, and every key between
// two NaN-free doubles' keys is itself a NaN-free double. Radix sorting and rank selection
// over samples work on these keys.
#pragma once

#include <cstdint>
#include <cstring>

namespace fleet::stats {

inline uint64_t order_key(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return (b >> 63) ? ~b : (b | (uint64_t{1} << 63));
}

inline double from_order_key(uint64_t k) {
  const uint64_t b = (k >> 63) ? (k & ~(uint64_t{1} << 63)) : ~k;
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

}  // namespace fleet::stats
