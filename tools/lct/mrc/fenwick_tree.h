// A Fenwick (binary indexed) tree of unsigned 64-bit sums over slots 0..n-1: point add and
// prefix sum in O(log n), built from plain values in O(n). Arithmetic wraps modulo 2^64, so
// adding the two's complement subtracts; every true prefix sum is non-negative, hence exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleet::mrc {

class FenwickTree {
 public:
  FenwickTree() = default;
  // The tree of `values` (slot i holds values[i]), in one linear pass.
  explicit FenwickTree(std::vector<uint64_t> values) : t_(std::move(values)) {
    for (size_t i = 0; i < t_.size(); ++i) {
      size_t parent = i | (i + 1);
      if (parent < t_.size()) t_[parent] += t_[i];
    }
  }

  size_t size() const { return t_.size(); }

  void add(size_t slot, uint64_t delta) {
    for (; slot < t_.size(); slot |= slot + 1) t_[slot] += delta;
  }
  void subtract(size_t slot, uint64_t delta) { add(slot, ~delta + 1); }

  // Sum of slots 0..slot inclusive.
  uint64_t prefix_sum(size_t slot) const {
    uint64_t sum = 0;
    for (size_t end = slot + 1; end > 0; end &= end - 1) sum += t_[end - 1];
    return sum;
  }

 private:
  std::vector<uint64_t> t_;
};

}  // namespace fleet::mrc
