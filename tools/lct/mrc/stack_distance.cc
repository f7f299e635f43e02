#include "mrc/stack_distance.h"

#include <algorithm>

namespace fleet::mrc {

uint64_t StackDistance::access(uint32_t key, uint64_t bytes) {
  if (key >= keys_.size()) keys_.resize(static_cast<size_t>(key) + 1);
  if (next_slot_ == tree_.size()) compact();
  KeyState& k = keys_[key];
  uint64_t distance = kColdMiss;
  if (k.slot == kNever) {
    ++live_;
  } else {
    // Bytes of every object whose latest access came after ours, plus our own.
    distance = total_bytes_ - tree_.prefix_sum(k.slot) + k.bytes;
    tree_.subtract(k.slot, k.bytes);
    slot_owner_[k.slot] = kNever;
    total_bytes_ -= k.bytes;
  }
  k.slot = next_slot_++;
  k.bytes = bytes;
  slot_owner_[k.slot] = key;
  tree_.add(k.slot, bytes);
  total_bytes_ += bytes;
  return distance;
}

void StackDistance::forget(uint32_t key) {
  if (key >= keys_.size() || keys_[key].slot == kNever) return;
  KeyState& k = keys_[key];
  tree_.subtract(k.slot, k.bytes);
  slot_owner_[k.slot] = kNever;
  total_bytes_ -= k.bytes;
  k = KeyState{};
  --live_;
}

void StackDistance::compact() {
  // Live slots keep their order and move to 0..live-1; at least half the new slots are free,
  // so the linear rebuild costs O(1) per access amortised.
  size_t slots = std::max(kMinSlots, static_cast<size_t>(2 * live_ + 2));
  std::vector<uint64_t> values(slots, 0);
  std::vector<uint32_t> owner(slots, kNever);
  uint32_t next = 0;
  for (size_t s = 0; s < next_slot_; ++s) {
    uint32_t key = slot_owner_[s];
    if (key == kNever) continue;
    keys_[key].slot = next;
    values[next] = keys_[key].bytes;
    owner[next] = key;
    ++next;
  }
  tree_ = FenwickTree(std::move(values));
  slot_owner_ = std::move(owner);
  next_slot_ = next;
}

}  // namespace fleet::mrc
