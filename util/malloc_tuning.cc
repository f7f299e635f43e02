#include "fleet/util/malloc_tuning.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace fleet::util {

namespace {
constexpr int kMmapThresholdBytes = 32 << 20;
std::atomic<bool> tuned{false};
}  // namespace

void tune_malloc_for_streaming() {
  // Allocations below 32 MiB come from the heap (not one mmap each), and up to 256 MiB freed at
  // the top of a heap stays there for the next batch. Fixed values also switch off glibc's
  // dynamic mmap threshold, so the behaviour does not depend on allocation history.
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  tuned.store(true, std::memory_order_release);
}

size_t heap_block_limit_bytes() {
  return tuned.load(std::memory_order_acquire) ? size_t{kMmapThresholdBytes} : 0;
}

void share_one_malloc_arena() { mallopt(M_ARENA_MAX, 1); }

namespace {

// True once the heap's next kReserve bytes are reserved and advised.
bool reserve_huge_page_heap() {
  constexpr std::uintptr_t kHuge = 2u << 20;
  constexpr std::size_t kReserve = 64u << 20;
  // The heap's next growth reserves kReserve (address space only), forced now with a block
  // larger than what is free at its top (a worker's earlier runs may have left plenty there);
  // the reserved range is then advised as huge pages.
  const std::size_t free_at_top = mallinfo2().keepcost;
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  const auto before = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  void* volatile block = std::malloc(free_at_top + (1u << 20));  // volatile: must not be elided
  std::free(block);
  const auto after = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  mallopt(M_TOP_PAD, 0);
  const std::uintptr_t from = (before + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t to = after & ~(kHuge - 1);
  if (to <= from) return false;  // the heap did not grow (e.g. the block was mmapped)
  return ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE) == 0;
}

}  // namespace

void back_heap_with_huge_pages() {
  static std::mutex mu;
  static bool done = false;  // a second reserve would only hold more address space
  std::lock_guard<std::mutex> lock(mu);
  if (!done) done = reserve_huge_page_heap();
}

}  // namespace fleet::util
