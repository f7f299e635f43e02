#include "fleet/engine/address_allocator.h"

#include <algorithm>
#include <iterator>

namespace fleet::storage {

AddressAllocator::AddressAllocator(uint64_t total) : total_(total) {
  if (total_ > 0) free_.emplace(0, total_);
}

bool AddressAllocator::allocate_batch(uint64_t size, size_t count, std::vector<uint64_t>& out) {
  if (count == 0) return true;
  if (size == 0) return false;
  // First pass: can `count` objects be carved at all?
  size_t found = 0;
  for (const auto& [addr, len] : free_) {
    if (len < size) continue;
    found += static_cast<size_t>(len / size);
    if (found >= count) break;
  }
  if (found < count) return false;
  // Commit, carving from the low end of each block.
  size_t remaining = count;
  auto it = free_.begin();
  while (remaining > 0 && it != free_.end()) {
    uint64_t addr = it->first;
    uint64_t len = it->second;
    if (len < size) {
      ++it;
      continue;
    }
    size_t take = static_cast<size_t>(std::min<uint64_t>(remaining, len / size));
    for (size_t i = 0; i < take; ++i) out.push_back(addr + i * size);
    remaining -= take;
    uint64_t carved = take * size;
    it = free_.erase(it);
    if (len > carved) it = std::next(free_.emplace_hint(it, addr + carved, len - carved));
  }
  used_ += count * size;
  return true;
}

void AddressAllocator::free(uint64_t addr, uint64_t size) {
  if (size == 0) return;
  used_ -= std::min(used_, size);
  auto next = free_.lower_bound(addr);
  uint64_t start = addr;
  uint64_t len = size;
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == addr) {
      start = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && addr + size == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  free_.emplace_hint(next, start, len);
}

std::vector<std::pair<uint64_t, uint64_t>> AddressAllocator::free_blocks() const {
  return {free_.begin(), free_.end()};
}

}  // namespace fleet::storage
