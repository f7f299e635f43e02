// An allocator for the few very large arrays of a run's end: latency samples being sorted,
// merged or sent (16 MB per 2 M samples). Each first touch of a 4 KiB page costs a page
// fault, ~14 µs on the VMs this was measured on (docs/benchmarks.md, "Page faults and huge pages"):
// a 16 MB copy paid ~55 ms in faults alone, and a run's end made seven such copies. Arrays of 1 MiB
// and more are mapped 2 MiB-aligned (rounded up to whole 2 MiB pages: at most 2x for the smallest)
// and marked MADV_HUGEPAGE, so the kernel backs them with transparent huge pages where it
// can: one fault per 2 MiB. Smaller ones use operator new.
// Not for the paced replay loop: a huge-page fault zeroes 2 MiB at once (a lateness spike).
// The arrays are written whole right after they are allocated, so by default their pages are
// populated at allocation in one call (util/prefault.h) rather than faulted in one by one;
// kPrefault = false is for memory filled over time by another thread (the read-ahead ring).
#pragma once

#include <cstddef>
#include <new>
#include <string>
#include <vector>

#include "fleet/util/prefault.h"

namespace fleet::util {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeAllocationMin = std::size_t{1} << 20;

void* allocate_huge(std::size_t bytes);  // throws std::bad_alloc
void deallocate_huge(void* p, std::size_t bytes) noexcept;

// Below this an allocation is a few pages: not worth a system call.
inline constexpr std::size_t kPrefaultFrom = std::size_t{64} << 10;

template <class T, bool kPrefault = true>
struct HugePageAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = HugePageAllocator<U, kPrefault>;
  };
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U, kPrefault>&) noexcept {}  // NOLINT: they convert

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    void* p = bytes < kHugeAllocationMin ? ::operator new(bytes) : allocate_huge(bytes);
    if (kPrefault && bytes >= kPrefaultFrom) prefault_writable(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeAllocationMin) {
      ::operator delete(p);
    } else {
      deallocate_huge(p, bytes);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U, kPrefault>&) const noexcept {
    return true;
  }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;
using HugeString = std::basic_string<char, std::char_traits<char>, HugePageAllocator<char>>;

}  // namespace fleet::util
