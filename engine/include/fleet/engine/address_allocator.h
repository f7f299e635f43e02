// The L1 address-space model (docs/era3-reference.md §2.5): a free list over [0, total) sorted by
// address, first-fit batched allocation that is all-or-nothing, coalescing frees. No memory is
// touched; it only decides where objects would live and when L1 is out of memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace fleet::storage {

class AddressAllocator {
 public:
  explicit AddressAllocator(uint64_t total);

  // `count` blocks of `size` bytes (size > 0, already aligned). Walks free blocks in address
  // order carving floor(block/size) objects from each; fails without side effects when fewer
  // than `count` fit. On success appends the addresses to `out`.
  bool allocate_batch(uint64_t size, size_t count, std::vector<uint64_t>& out);
  void free(uint64_t addr, uint64_t size);

  uint64_t total() const { return total_; }
  uint64_t used() const { return used_; }
  size_t free_block_count() const { return free_.size(); }
  // Free blocks as (address, size), ascending; for tests and diagnostics.
  std::vector<std::pair<uint64_t, uint64_t>> free_blocks() const;

 private:
  uint64_t total_;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_;  // address -> size
};

}  // namespace fleet::storage
