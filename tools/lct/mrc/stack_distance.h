// Exact byte-weighted LRU stack distances in one pass (Mattson et al.'s stack algorithm with a
// Fenwick tree over access times, as in Bennett & Kruskal / Almási et al.).
//
// Every key's latest access owns one time slot, and the tree holds at that slot the bytes of
// the object. The distance of an access is the sum of the bytes of the distinct objects
// accessed since the key's previous access plus the key's own size: the smallest LRU capacity
// in bytes at which this access hits. A key's first access has no finite distance (a
// compulsory miss). O(log n) per access; slots are renumbered (compacted) whenever they run
// out, so memory follows the distinct keys, not the accesses.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "mrc/fenwick_tree.h"

namespace fleet::mrc {

class StackDistance {
 public:
  static constexpr uint64_t kColdMiss = std::numeric_limits<uint64_t>::max();

  // `key` is a dense id (0, 1, 2, ... in any order). The distance uses the size the object had
  // in the cache (its previous access); afterwards it is held with `bytes`.
  uint64_t access(uint32_t key, uint64_t bytes);
  // The object leaves the cache (an aborted write): its next access is a compulsory miss again.
  void forget(uint32_t key);

  uint64_t resident_keys() const { return live_; }
  uint64_t resident_bytes() const { return total_bytes_; }  // the working set seen so far

 private:
  static constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();
  static constexpr size_t kMinSlots = 1024;

  struct KeyState {
    uint32_t slot = kNever;  // time slot of the latest access
    uint64_t bytes = 0;
  };

  void compact();

  std::vector<KeyState> keys_;
  std::vector<uint32_t> slot_owner_;  // slot -> key, kNever when the slot is stale
  FenwickTree tree_;
  uint32_t next_slot_ = 0;
  uint64_t live_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace fleet::mrc
