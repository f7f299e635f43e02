#include "fleet/util/huge_page_allocator.h"

#include <sys/mman.h>

#include <cstdint>

namespace fleet::util {

namespace {
std::size_t mapped_size(std::size_t bytes) {
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
}  // namespace

void* allocate_huge(std::size_t bytes) {
  const std::size_t size = mapped_size(bytes);
  // Over-map by one huge page, then unmap the unaligned head and the tail: what stays is
  // exactly [aligned, aligned + size), which deallocate_huge can recompute from `bytes`.
  void* raw =
      ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
  if (aligned > base) ::munmap(raw, aligned - base);
  const std::uintptr_t tail = aligned + size;
  const std::uintptr_t end = base + size + kHugePage;
  if (end > tail) ::munmap(reinterpret_cast<void*>(tail), end - tail);
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // a hint: fine if refused
  return reinterpret_cast<void*>(aligned);
}

void deallocate_huge(void* p, std::size_t bytes) noexcept { ::munmap(p, mapped_size(bytes)); }

}  // namespace fleet::util
