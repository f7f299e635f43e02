#include "fleet/stats/radix_sort.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "fleet/stats/double_order.h"
#include "fleet/util/huge_page_allocator.h"

namespace fleet::stats {

namespace {

constexpr int kDigitBits = 11;
constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;  // 6
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
constexpr std::size_t kRadixFrom = 1 << 14;  // below this std::sort is as fast

}  // namespace

void sort_doubles(double* data, std::size_t n) {
  if (n < kRadixFrom) {
    std::sort(data, data + n);
    return;
  }
  // Two key arrays, left uninitialised (every slot is written before it is read).
  struct Keys {
    explicit Keys(std::size_t n) : n(n), p(util::HugePageAllocator<uint64_t>().allocate(n)) {}
    ~Keys() { util::HugePageAllocator<uint64_t>().deallocate(p, n); }
    Keys(const Keys&) = delete;
    Keys& operator=(const Keys&) = delete;
    uint64_t* data() { return p; }
    uint64_t& operator[](std::size_t i) { return p[i]; }
    std::size_t n;
    uint64_t* p;
  } keys(n), scratch(n);
  // Every pass's digit counts in one read of the keys. On the heap, populated in one call: on
  // a thread's stack these 96 KiB were 24 page faults.
  util::HugeVector<std::array<std::size_t, kBuckets>> counts(kPasses);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t k = order_key(data[i]);
    keys[i] = k;
    for (int p = 0; p < kPasses; ++p) ++counts[p][(k >> (p * kDigitBits)) & (kBuckets - 1)];
  }
  uint64_t* from = keys.data();
  uint64_t* to = scratch.data();
  for (int p = 0; p < kPasses; ++p) {
    auto& c = counts[p];
    if (std::find(c.begin(), c.end(), n) != c.end()) continue;  // one digit for all: in order
    std::size_t sum = 0;
    for (auto& v : c) {
      const std::size_t here = v;
      v = sum;
      sum += here;
    }
    const int shift = p * kDigitBits;
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t k = from[i];
      to[c[(k >> shift) & (kBuckets - 1)]++] = k;
    }
    std::swap(from, to);
  }
  for (std::size_t i = 0; i < n; ++i) data[i] = from_order_key(from[i]);
}

}  // namespace fleet::stats
