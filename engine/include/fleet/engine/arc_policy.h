// Adaptive Replacement Cache as LMCache's MP eviction API defines it (arc.py, merged after era 3
// and offered here as `--eviction-policy ARC`): resident keys in T1 (seen once) and T2 (seen
// again), key-only ghosts B1/B2 of policy-chosen removals, a T1 target p that a re-created ghost
// moves (B1 hit: +max(1, |B2|/|B1|), B2 hit: -max(1, |B1|/|B2|)), and a capacity that is the
// largest resident count seen (the API asks for a ratio, not a size). Victims come from T1
// while the remaining T1 is >= int(p), else from T2, then T1; only confirmed removals of
// chosen victims become ghosts. Batches are processed in reverse, as the LRU does.
#pragma once

#include <list>
#include <unordered_map>
#include <unordered_set>

#include "fleet/engine/eviction_policy.h"

namespace fleet::storage {

class ArcPolicy final : public EvictionPolicy {
 public:
  void on_keys_created(const KeyList& keys) override;
  void on_keys_touched(const KeyList& keys) override;
  void on_keys_removed(const KeyList& keys) override;
  KeyList get_eviction_victims(double ratio, const KeyFilter& eligible) override;
  size_t tracked() const override { return resident(); }  // ghosts excluded
  // T1 then T2, each least recent first.
  KeyList order() const override;

  // Diagnostics and tests.
  enum class List : uint8_t { T1, T2, B1, B2 };
  KeyList list(List which) const;
  double target_t1() const { return target_t1_; }
  size_t capacity() const { return capacity_; }

 private:
  using Order = std::list<trace::ObjectKey>;
  struct Where {
    List list;
    Order::iterator it;
  };
  Order& order_of(List l) { return lists_[static_cast<size_t>(l)]; }
  const Order& order_of(List l) const { return lists_[static_cast<size_t>(l)]; }
  size_t size_of(List l) const { return order_of(l).size(); }
  size_t resident() const { return size_of(List::T1) + size_of(List::T2); }
  // Moves (or inserts) `k` to the most recent end of `to`.
  void place(const trace::ObjectKey& k, List to);
  void forget(const trace::ObjectKey& k);
  void pop_oldest(List l);
  void trim_ghosts();

  Order lists_[4];
  std::unordered_map<trace::ObjectKey, Where, KeyHash> where_;
  std::unordered_set<trace::ObjectKey, KeyHash> pending_;  // chosen victims not yet removed
  double target_t1_ = 0.0;
  size_t capacity_ = 0;
};

}  // namespace fleet::storage
