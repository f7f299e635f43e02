// uint64 -> V map with open addressing (linear probing, backward-shift deletion), for the time
// router's table of open lifecycles: every record looks up, inserts and often erases each of
// its chunks, and std::unordered_map's node allocation per insert was a tenth of the
// coordinator's instructions. Keys are well-mixed ids already; a multiply spreads them anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleet::plan {

template <class V>
class FlatU64Map {
 public:
  size_t size() const { return size_; }

  V* find(uint64_t key) {
    if (size_ == 0) return nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

  // The value for key, value-initialised when absent. Valid until the next insert or erase.
  V& operator[](uint64_t key) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = home(key);
    for (; slots_[i].used; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
    }
    slots_[i] = Slot{key, V{}, true};
    ++size_;
    return slots_[i].value;
  }

  void erase(uint64_t key) {
    if (size_ == 0) return;
    size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return;
      if (slots_[i].key == key) break;
    }
    // Backward shift: move later members of the probe run into the hole when that keeps them
    // reachable from their home slot, so lookups never need tombstones.
    for (size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].used = false;
    --size_;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    V value{};
    bool used = false;
  };

  size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const size_t cap = old.empty() ? 64 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(cap));
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) (*this)[s.key] = s.value;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace fleet::plan
