// The plan's key interning (l2_plan.cc): each distinct key is stored once, in the plan's key
// list (its id is its index there), and found again through an open-addressing index of
// (tag, id) pairs that compares against that list. A key table holding its own copy of every
// key (storage::KeyTable, 100-byte nodes) doubled the fresh memory the plan touches, which is
// the plan thread's largest cost on a VM that backs memory on first touch (docs/benchmarks.md,
// "L2 replay"): this index is 8 bytes a slot.
#pragma once

#include <cstdint>
#include <vector>

#include "fleet/engine/key_hash.h"
#include "fleet/trace/types.h"

namespace fleet::l2replay::detail {

class KeyInterner {
 public:
  explicit KeyInterner(std::vector<trace::ObjectKey>& keys) : keys_(keys) {}

  // What the index knows a key by (its hash): a caller that prefetches and then interns a key
  // computes it once and passes it to each.
  static uint32_t tag_of(const trace::ObjectKey& k) {
    return static_cast<uint32_t>((storage::KeyHash{}(k)*0x9e3779b97f4a7c15ull) >> 32);
  }

  // k's id; a key not seen before is appended to the list. std::length_error past 2^32 - 2 keys.
  // `tag` must be tag_of(k).
  uint32_t intern(const trace::ObjectKey& k, uint32_t tag);
  uint32_t intern(const trace::ObjectKey& k) { return intern(k, tag_of(k)); }

  // Hints for a caller that knows its next keys, by their tags: pull the index slot where a
  // key's probe starts, and later, once it is in cache, the key it names. No effect on the
  // contents.
  void prefetch_index(uint32_t tag) const {
    if (!index_.empty()) __builtin_prefetch(&index_[tag & mask_]);
  }
  void prefetch_key(uint32_t tag) const;

  void clear();  // frees the index; the list stays

 private:
  struct Slot {
    uint32_t tag = 0;
    uint32_t id_plus_1 = 0;  // 0: empty
  };
  void grow();

  std::vector<trace::ObjectKey>& keys_;
  std::vector<Slot> index_;
  size_t mask_ = 0;
};

}  // namespace fleet::l2replay::detail
