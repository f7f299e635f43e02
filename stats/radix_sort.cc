#include "fleet/stats/radix_sort.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "fleet/stats/double_order.h"
#include "fleet/util/huge_page_allocator.h"

namespace fleet::stats {

namespace {

constexpr int kDigitBits = 11;
constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;  // 6
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
// The radix sort from here on. Measured with fresh samples for every sort, as a run sorts each
// op's once (a benchmark that sorts one array again and again lets the branch predictor learn
// it, and std::sort then looks 5-10x faster up to ~4k samples): radix 22-30 us against
// std::sort's 93-103 at 2k samples, 159-179 against 884-1,079 at 16k; at 512 the margin is
// small (12-17 against 20), so smaller inputs keep std::sort and skip the counts and scratch.
constexpr std::size_t kRadixFrom = 1 << 10;

// Count is the digit counts' type: 32 bits while n fits, which halves the counts that every
// sort clears (96 KiB of 64-bit counts were ~1 % of a 100k-record run, all memset).
template <class Count>
void radix_sort(double* data, std::size_t n) {
  // The keys overwrite the samples in place (a double and its key are both 8 bytes), so the
  // sort needs one scratch array of n, not two: on a node's millions of samples that is 8 bytes
  // a sample less memory to allocate and fault in at the run's end.
  static_assert(sizeof(double) == sizeof(uint64_t));
  auto* keys = reinterpret_cast<unsigned char*>(data);  // read and written with memcpy only
  auto key_at = [keys](std::size_t i) {
    uint64_t k;
    std::memcpy(&k, keys + i * sizeof k, sizeof k);
    return k;
  };
  // Left uninitialised: every slot is written before it is read.
  struct Scratch {
    explicit Scratch(std::size_t n) : n(n), p(util::HugePageAllocator<uint64_t>().allocate(n)) {}
    ~Scratch() { util::HugePageAllocator<uint64_t>().deallocate(p, n); }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    std::size_t n;
    uint64_t* p;
  } scratch_storage(n);
  uint64_t* scratch = scratch_storage.p;
  // Every pass's digit counts in one read of the keys. On the heap, populated in one call: on
  // a thread's stack these 96 KiB were 24 page faults.
  util::HugeVector<std::array<Count, kBuckets>> counts(kPasses);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t k = order_key(data[i]);
    std::memcpy(keys + i * sizeof k, &k, sizeof k);
    for (int p = 0; p < kPasses; ++p) ++counts[p][(k >> (p * kDigitBits)) & (kBuckets - 1)];
  }
  bool in_scratch = false;  // where the keys are now
  for (int p = 0; p < kPasses; ++p) {
    auto& c = counts[p];
    if (std::find(c.begin(), c.end(), static_cast<Count>(n)) != c.end()) continue;  // in order
    Count sum = 0;
    for (auto& v : c) {
      const Count here = v;
      v = sum;
      sum += here;
    }
    const int shift = p * kDigitBits;
    if (in_scratch) {
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t k = scratch[i];
        std::memcpy(keys + c[(k >> shift) & (kBuckets - 1)]++ * sizeof k, &k, sizeof k);
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t k = key_at(i);
        scratch[c[(k >> shift) & (kBuckets - 1)]++] = k;
      }
    }
    in_scratch = !in_scratch;
  }
  for (std::size_t i = 0; i < n; ++i) data[i] = from_order_key(in_scratch ? scratch[i] : key_at(i));
}

}  // namespace

void sort_doubles(double* data, std::size_t n) {
  if (n < kRadixFrom) {
    std::sort(data, data + n);
  } else if (n <= UINT32_MAX) {
    radix_sort<uint32_t>(data, n);
  } else {
    radix_sort<std::size_t>(data, n);
  }
}

}  // namespace fleet::stats
