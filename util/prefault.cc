#include "fleet/util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace fleet::util {

#ifndef MADV_POPULATE_WRITE  // Linux 5.14; the libc headers may predate it
constexpr int MADV_POPULATE_WRITE = 23;
#endif

bool prefault_writable(void* p, std::size_t bytes) noexcept {
  if (bytes == 0) return false;
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

void prefault_heap(std::size_t bytes) noexcept {
  void* block = std::malloc(bytes);
  if (block == nullptr) return;
  prefault_writable(block, bytes);
  std::free(block);  // back to the heap's top, mapped and present
}

}  // namespace fleet::util
