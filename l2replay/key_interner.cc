#include "key_interner.h"

#include <stdexcept>

namespace fleet::l2replay::detail {

uint32_t KeyInterner::intern(const trace::ObjectKey& k, uint32_t tag) {
  if ((keys_.size() + 1) * 2 > index_.size()) grow();
  size_t i = tag & mask_;
  for (;; i = (i + 1) & mask_) {
    const Slot s = index_[i];
    if (s.id_plus_1 == 0) break;
    if (s.tag == tag && keys_[s.id_plus_1 - 1] == k) return s.id_plus_1 - 1;
  }
  if (keys_.size() >= UINT32_MAX - 1) throw std::length_error("L2 plan: more than 2^32 - 2 keys");
  keys_.push_back(k);
  index_[i] = Slot{tag, static_cast<uint32_t>(keys_.size())};
  return static_cast<uint32_t>(keys_.size() - 1);
}

void KeyInterner::prefetch_key(uint32_t tag) const {
  if (index_.empty()) return;
  const Slot s = index_[tag & mask_];
  if (s.id_plus_1 == 0 || s.tag != tag) return;
  const char* p = reinterpret_cast<const char*>(&keys_[s.id_plus_1 - 1]);
  __builtin_prefetch(p);
  __builtin_prefetch(p + sizeof(trace::ObjectKey) - 1);
}

// Rebuilt from the old index alone: the tags are all it needs, so no key is touched.
void KeyInterner::grow() {
  const size_t cap = index_.empty() ? 1024 : index_.size() * 2;
  std::vector<Slot> old(cap);
  old.swap(index_);
  mask_ = cap - 1;
  for (const Slot& s : old) {
    if (s.id_plus_1 == 0) continue;
    size_t i = s.tag & mask_;
    while (index_[i].id_plus_1 != 0) i = (i + 1) & mask_;
    index_[i] = s;
  }
}

void KeyInterner::clear() {
  std::vector<Slot>().swap(index_);
  mask_ = 0;
}

}  // namespace fleet::l2replay::detail
