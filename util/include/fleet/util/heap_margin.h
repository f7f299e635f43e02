// Keeps the memory a thread's next allocations will get populated ahead of them. On the VMs
// measured a first touch of a heap page costs its thread 10-100 us, a populate ~0.5 us a page;
// a paced replay's dispatch thread, whose logs and tables grow all run long, took ~260 such
// faults in a 4.4-s run (docs/causal-pacing.md, "Page faults on the dispatch thread"). A refresh
// allocates `margin` bytes, which the allocator normally carves from the bottom of its arena's
// top chunk, where the next allocations no free list can serve go too (a free chunk at least that
// large elsewhere would be used instead, and populated to no purpose); populates
// (MADV_POPULATE_WRITE: no contents change) the part not yet present, from the bottom; and frees
// them back into the top.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleet::util {

class HeapMargin {
 public:
  // Inactive (refresh does nothing) unless tune_malloc_for_streaming() has made a block of this
  // size come from the heap (at most half its mmap threshold: malloc adds its own overhead): as
  // its own mmap it would be unmapped again at the free. Always inactive under ASan or TSan,
  // whose allocators are not glibc's.
  explicit HeapMargin(size_t margin_bytes);
  bool active() const { return active_; }
  size_t margin() const { return margin_; }
  // On the calling thread's arena: populates at most `populate_at_most` bytes of the margin that
  // are not present yet, from the first such page up. Checking costs ~1 us per MiB of margin
  // (mincore), populating ~0.13 ms per MiB not yet present. True when the whole margin is
  // present afterwards; false when inactive, the allocation failed, or part is still missing.
  // A failed mincore or populate (Linux < 5.14) makes the margin inactive for good.
  bool refresh(size_t populate_at_most = SIZE_MAX) noexcept;

 private:
  size_t margin_;
  bool active_;
  std::vector<unsigned char> resident_;  // mincore's answer, one byte a page
};

}  // namespace fleet::util
