// Maps memory in ahead of its first use with one madvise(MADV_POPULATE_WRITE) call per
// range instead of one page fault per 4 KiB page. On the VMs measured a fault costs ~10 us
// and a populated page 0.5-1.6 us (docs/benchmarks.md, "Page faults and huge pages"): a 369-record
// replay took ~250 faults. Needs Linux 5.14; on older kernels every call is a
// no-op (false) and pages fault in on first touch as before.
#pragma once

#include <cstddef>

namespace fleet::util {

// Populates every page that [p, p + bytes) touches (rounded outward: the neighbours of a heap
// block are heap too) as a write would. Contents are unchanged. False if nothing was done.
bool prefault_writable(void* p, std::size_t bytes) noexcept;

// Grows the calling thread's heap (the main heap, from the main thread) by `bytes` and populates
// them, so the next allocations of that much find their pages present. Call after
// tune_malloc_for_streaming(), which keeps a block this size on the heap rather than mmapping
// it, and keeps it mapped once freed.
void prefault_heap(std::size_t bytes) noexcept;

}  // namespace fleet::util
