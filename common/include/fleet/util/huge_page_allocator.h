// An allocator for the few very large arrays of a run's end: latency samples being sorted,
// merged or sent (16 MB per 2 M samples). Each first touch of a 4 KiB page costs a page
// fault, ~14 µs on the VMs this was measured on (docs/benchmarks.md): a 16 MB copy paid
// ~55 ms in faults alone, and a run's end made seven such copies. Arrays of 1 MiB and more
// are mapped 2 MiB-aligned (rounded up to whole 2 MiB pages: at most 2x for the smallest)
// and marked MADV_HUGEPAGE, so the kernel backs them with transparent huge pages where it
// can: one fault per 2 MiB. Smaller ones use operator new.
// Not for the paced replay loop: a huge-page fault zeroes 2 MiB at once (a lateness spike).
#pragma once

#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace fleet::util {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
inline constexpr std::size_t kHugeAllocationMin = std::size_t{1} << 20;

void* allocate_huge(std::size_t bytes);  // throws std::bad_alloc
void deallocate_huge(void* p, std::size_t bytes) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: allocators convert

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeAllocationMin) return static_cast<T*>(::operator new(bytes));
    return static_cast<T*>(allocate_huge(bytes));
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
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;
using HugeString = std::basic_string<char, std::char_traits<char>, HugePageAllocator<char>>;

}  // namespace fleet::util
