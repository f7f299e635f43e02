// The engine's key -> value table: open addressing over a compact index, values in a slab.
//
// Why not std::unordered_map: every lookup there walks bucket array -> previous node -> node
// (three dependent cache misses on tables larger than the cache) and every insert mallocs a
// node; the write path does ~9 key lookups per key, so that walk was most of its profile. Here a
// lookup is one probe run in an index of 8-byte entries {32-bit hash tag, slot} kept at most
// half full, then one node; inserts and erases allocate nothing once the slab has grown.
//
// Slots are stable for a key's lifetime (an erased slot is reused by a later insert), so other
// structures can link entries by slot (the LRU's recency list does). The slab grows in fixed
// chunks, so growing never copies nodes and references to values stay valid until erase.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fleet/engine/key_hash.h"
#include "fleet/trace/types.h"

namespace fleet::storage {

template <class V>
class KeyTable {
 public:
  using Slot = uint32_t;
  static constexpr Slot npos = ~Slot{0};

  Slot find(const trace::ObjectKey& k) const {
    if (size_ == 0) return npos;
    const uint32_t tag = tag_of(k);
    for (size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const Entry e = index_[i];
      if (e.slot == npos) return npos;
      if (e.tag == tag && node(e.slot).key == k) return e.slot;
    }
  }

  // The slot holding k; inserted (value-initialised) when absent. second = inserted.
  std::pair<Slot, bool> try_emplace(const trace::ObjectKey& k) {
    if ((size_ + 1) * 2 > index_.size()) grow();
    const uint32_t tag = tag_of(k);
    size_t i = tag & mask_;
    for (;; i = (i + 1) & mask_) {
      const Entry e = index_[i];
      if (e.slot == npos) break;
      if (e.tag == tag && node(e.slot).key == k) return {e.slot, false};
    }
    Slot s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      // Slots are 32-bit: 2^32 - 1 keys (~400 GB of nodes) is the limit, refused not wrapped.
      if (slots_ >= npos) throw std::length_error("engine key table: more than 2^32 - 1 keys");
      if ((slots_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Node[]>(kChunk));
      s = static_cast<Slot>(slots_++);
    }
    Node& n = node(s);
    n.key = k;
    n.tag = tag;
    n.live = true;
    index_[i] = Entry{tag, s};
    ++size_;
    return {s, true};
  }

  void erase(Slot s) {
    Node& n = node(s);
    size_t i = n.tag & mask_;
    while (index_[i].slot != s) i = (i + 1) & mask_;
    // Backward-shift deletion: pull later members of the probe run into the hole, so the index
    // never holds tombstones and lookups stay short however many erases happen.
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Entry e = index_[j];
      if (e.slot == npos) break;
      const size_t home = e.tag & mask_;
      // e may move into hole i iff i lies cyclically in [home, j).
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        index_[i] = e;
        i = j;
      }
    }
    index_[i] = Entry{0, npos};
    n.key = trace::ObjectKey{};  // releases a long chunk hash now, not at slot reuse
    n.value = V{};
    n.live = false;
    free_.push_back(s);
    --size_;
  }

  const trace::ObjectKey& key(Slot s) const { return node(s).key; }
  V& value(Slot s) { return node(s).value; }
  const V& value(Slot s) const { return node(s).value; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // f(slot) for every live slot, in slot order. f may erase the slot it is given.
  template <class F>
  void for_each(F&& f) {
    for (Slot s = 0; s < slots_; ++s)
      if (node(s).live) f(s);
  }

  void clear() {
    index_.clear();
    chunks_.clear();
    slots_ = 0;
    free_.clear();
    size_ = 0;
    mask_ = 0;
  }

 private:
  struct Entry {
    uint32_t tag = 0;
    Slot slot = npos;
  };
  struct Node {
    trace::ObjectKey key;
    V value{};
    uint32_t tag = 0;
    bool live = false;
  };
  static constexpr size_t kChunk = 1024;  // nodes per slab chunk

  Node& node(Slot s) { return chunks_[s / kChunk][s % kChunk]; }
  const Node& node(Slot s) const { return chunks_[s / kChunk][s % kChunk]; }

  // Top half of a multiplicative remix: well spread even where KeyHash's low bits are not.
  static uint32_t tag_of(const trace::ObjectKey& k) {
    return static_cast<uint32_t>((KeyHash{}(k)*0x9e3779b97f4a7c15ull) >> 32);
  }

  // Rebuilt from the old index alone: tags are all it needs, so no node is touched.
  void grow() {
    const size_t cap = index_.empty() ? 16 : index_.size() * 2;
    std::vector<Entry> old(cap, Entry{});
    old.swap(index_);
    mask_ = cap - 1;
    for (const Entry& e : old) {
      if (e.slot == npos) continue;
      size_t i = e.tag & mask_;
      while (index_[i].slot != npos) i = (i + 1) & mask_;
      index_[i] = e;
    }
  }

  std::vector<Entry> index_;
  std::vector<std::unique_ptr<Node[]>> chunks_;
  size_t slots_ = 0;  // slots ever handed out (live + free)
  std::vector<Slot> free_;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace fleet::storage
