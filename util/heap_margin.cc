#include "fleet/util/heap_margin.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "fleet/util/malloc_tuning.h"
#include "fleet/util/prefault.h"

namespace fleet::util {

namespace {
// The margin relies on glibc's malloc (a freed block rejoins the top chunk, the next allocations
// are carved from its bottom); ASan's and TSan's allocators work otherwise, and quarantine what
// is freed: there it stays off.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcMalloc = false;
#elif defined(__has_feature)
constexpr bool kGlibcMalloc =
    !(__has_feature(address_sanitizer) || __has_feature(thread_sanitizer));
#else
constexpr bool kGlibcMalloc = true;
#endif

uintptr_t page_bytes() {
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

HeapMargin::HeapMargin(size_t margin_bytes)
    : margin_(margin_bytes),
      active_(kGlibcMalloc && margin_bytes > 0 && margin_bytes <= heap_block_limit_bytes() / 2),
      resident_(active_ ? margin_bytes / page_bytes() + 2 : 0) {}

bool HeapMargin::refresh(size_t populate_at_most) noexcept {
  if (!active_) return false;
  void* block = std::malloc(margin_);
  if (block == nullptr) return false;
  // The block's pages, rounded outward (its neighbours are heap too).
  const uintptr_t page = page_bytes();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(block) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + margin_ + page - 1) & ~(page - 1);
  const size_t pages = (end - begin) / page;
  bool complete = false;
  if (::mincore(reinterpret_cast<void*>(begin), end - begin, resident_.data()) != 0) {
    active_ = false;  // cannot tell what is present: stop rather than populate blindly
  } else {
    size_t first_missing = 0;
    while (first_missing < pages && (resident_[first_missing] & 1)) ++first_missing;
    complete = first_missing == pages;
    if (!complete && populate_at_most > 0) {
      const uintptr_t from = begin + first_missing * page;
      const uintptr_t to = end - from <= populate_at_most ? end : from + populate_at_most;
      if (prefault_writable(reinterpret_cast<void*>(from), to - from)) {
        complete = to == end;
      } else {
        active_ = false;  // MADV_POPULATE_WRITE unsupported (Linux < 5.14): give up for good
      }
    }
  }
  std::free(block);  // back into the top chunk: mapped, and what was populated stays present
  return complete;
}

}  // namespace fleet::util
