// Eviction policies the era-3 factory offers for L1 (docs/era3-reference.md §3.3-§3.4): LRU with
// reverse-batch insertion, and noop. IsolatedLRU is accepted as a name and behaves as LRU for L1
// (the era-3 L1 loop never passes a cache_salt; docs/engine.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "fleet/engine/key_table.h"
#include "fleet/engine/l1_listener.h"

namespace fleet::storage {

using KeyFilter = std::function<bool(const trace::ObjectKey&)>;

class EvictionPolicy {
 public:
  virtual ~EvictionPolicy() = default;
  virtual void on_keys_created(const KeyList& keys) = 0;
  virtual void on_keys_touched(const KeyList& keys) = 0;
  virtual void on_keys_removed(const KeyList& keys) = 0;
  // One DISCARD batch: target = int(tracked * ratio) (at least 1 when ratio > 0), walking from
  // the LRU end and skipping keys the filter rejects. Empty when nothing qualifies.
  virtual KeyList get_eviction_victims(double ratio, const KeyFilter& eligible) = 0;
  virtual size_t tracked() const = 0;
  // Tracked keys, least recently used first (tests, diagnostics).
  virtual KeyList order() const = 0;
};

class LruPolicy final : public EvictionPolicy {
 public:
  void on_keys_created(const KeyList& keys) override;
  void on_keys_touched(const KeyList& keys) override;
  void on_keys_removed(const KeyList& keys) override;
  KeyList get_eviction_victims(double ratio, const KeyFilter& eligible) override;
  size_t tracked() const override { return index_.size(); }
  KeyList order() const override;

 private:
  // One key table whose entries are also the recency list (prev/next are slots, stable while
  // a key is tracked): a touch, create or remove is one lookup and no allocation.
  using Slot = uint32_t;
  static constexpr Slot npos = ~Slot{0};
  struct Link {
    Slot prev = npos;
    Slot next = npos;
  };
  void unlink(Slot s);
  void push_mru(Slot s);
  KeyTable<Link> index_;
  Slot lru_ = npos;  // least recently used end
  Slot mru_ = npos;
};

class NoopPolicy final : public EvictionPolicy {
 public:
  void on_keys_created(const KeyList&) override {}
  void on_keys_touched(const KeyList&) override {}
  void on_keys_removed(const KeyList&) override {}
  KeyList get_eviction_victims(double, const KeyFilter&) override { return {}; }
  size_t tracked() const override { return 0; }
  KeyList order() const override { return {}; }
};

// "LRU", "IsolatedLRU" or "noop"; throws std::invalid_argument otherwise.
std::unique_ptr<EvictionPolicy> make_eviction_policy(std::string_view name);

// The L1 -> policy bridge of era 3 (§3.2): created on write-finished and prefetch admission,
// touched on touch_keys, removed on deletes; reserved_write creates only when switched on
// (a later LMCache revision), reads never change recency.
class EvictionBridge final : public L1Listener {
 public:
  EvictionBridge(EvictionPolicy& policy, bool reserved_write_creates)
      : policy_(policy), reserved_write_creates_(reserved_write_creates) {}
  unsigned interests() const override {
    return kWriteFinished | kFinishWriteAndReserveRead | kAccessed | kDeletedByManager |
           (reserved_write_creates_ ? kReservedWrite : 0u);
  }
  void on_l1_keys_reserved_write(const KeyList& k) override {
    if (reserved_write_creates_) policy_.on_keys_created(k);
  }
  void on_l1_keys_write_finished(const KeyList& k) override { policy_.on_keys_created(k); }
  void on_l1_keys_finish_write_and_reserve_read(const KeyList& k) override {
    policy_.on_keys_created(k);
  }
  void on_l1_keys_accessed(const KeyList& k) override { policy_.on_keys_touched(k); }
  void on_l1_keys_deleted_by_manager(const KeyList& k) override { policy_.on_keys_removed(k); }

 private:
  EvictionPolicy& policy_;
  bool reserved_write_creates_;
};

}  // namespace fleet::storage
