#include "fleet/util/malloc_tuning.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace fleet::util {

void tune_malloc_for_streaming() {
  // Allocations below 32 MiB come from the heap (not one mmap each), and up to 256 MiB freed at
  // the top of a heap stays there for the next batch. Fixed values also switch off glibc's
  // dynamic mmap threshold, so the behaviour does not depend on allocation history.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

namespace {

void reserve_huge_page_heap() {
  constexpr std::uintptr_t kHuge = 2u << 20;
  constexpr std::size_t kReserve = 64u << 20;
  // The heap's next growth reserves kReserve (address space only), forced now with a block
  // larger than what is left at its top; the reserved range is then advised as huge pages.
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  const auto before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  void* volatile block = std::malloc(1u << 20);  // volatile: the pair must not be optimised out
  std::free(block);
  const auto after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  const std::uintptr_t from = (before + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t to = after & ~(kHuge - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  mallopt(M_TOP_PAD, 0);
}

}  // namespace

void back_heap_with_huge_pages() {
  static std::once_flag once;  // a second reserve would only hold more address space
  std::call_once(once, reserve_huge_page_heap);
}

}  // namespace fleet::util
