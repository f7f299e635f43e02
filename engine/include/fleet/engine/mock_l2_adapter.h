// LMCache's era-3 `mock` L2 adapter (docs/era3-reference.md §6.2): an in-memory store keyed by the
// full ObjectKey, skip-when-full capacity, lookup lock counts, and the bandwidth model: a store
// or load completes bytes/bandwidth after it was submitted, on the engine Clock. It keeps sizes
// only (the payload of a zero-filled buffer carries no information; docs/engine.md).
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "fleet/engine/key_table.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

namespace fleet::storage {

struct MockL2Config {
  double max_size_gb = 0;
  double mock_bandwidth_gb = 0;
  // The spec's sizes, or which field is missing or not a number > 0.
  static Result<MockL2Config> from_json(const nlohmann::json& j);
};

class MockL2Adapter final : public L2Adapter {
 public:
  explicit MockL2Adapter(const MockL2Config& cfg);
  std::string_view type() const override { return "mock"; }

  uint64_t submit_store(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) override;
  uint64_t submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  void submit_unlock(std::vector<trace::ObjectKey> keys) override;
  std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>& keys) override;

  // Keys by id: the bound keys' objects live in an array by id (an id is an index, never a
  // hash and a probe, and no key is copied); objects stored before the bind move there, and the
  // ObjectKey calls after it find a bound key through an index built on their first use. The
  // table's keys must be distinct (a plan's are); on a second bind the first table must still be
  // valid, since the objects held by id go back to the key table under their keys.
  void bind_key_table(std::span<const trace::ObjectKey> table) override;
  uint64_t submit_store_ids(std::span<const uint32_t> ids,
                            std::span<const uint64_t> sizes) override;
  uint64_t submit_lookup_and_lock_ids(std::span<const uint32_t> ids) override;
  uint64_t submit_load_ids(std::span<const uint32_t> ids, std::span<const uint64_t> sizes) override;
  void submit_unlock_ids(std::span<const uint32_t> ids) override;
  void delete_ids(std::span<const uint32_t> ids) override;

  L2Usage usage() const override { return {current_, capacity_}; }

  bool contains(const trace::ObjectKey& k) const { return present(find(k)); }
  int64_t lock_count(const trace::ObjectKey& k) const;
  uint64_t capacity_bytes() const { return capacity_; }
  uint64_t bandwidth_bytes_per_s() const { return bandwidth_; }
  // Transfer time of `bytes` under the bandwidth model.
  int64_t transfer_ns(uint64_t bytes) const;

 private:
  struct Entry {
    uint64_t size = 0;
    int64_t locks = 0;
    bool present = false;  // false: a bound id's object is not in L2 (unbound keys are erased)
  };
  using Objects = KeyTable<Entry>;
  using Slot = Objects::Slot;
  // Where a key's object lives: a bound id's entry (slot npos) or a slot of the key table.
  struct Ref {
    Entry* entry = nullptr;  // nullptr: the key has no entry
    Slot slot = Objects::npos;
  };

  static bool present(Ref r) { return r.entry != nullptr && r.entry->present; }
  Ref find(const trace::ObjectKey& k) const;
  Ref find(uint32_t id) const;
  Ref insert(const trace::ObjectKey& k);
  Ref insert(uint32_t id) const { return find(id); }
  void remove(Ref r);
  // The bound id of `k`, or npos: the key index, built on the first ObjectKey call after a bind.
  Slot bound_id(const trace::ObjectKey& k) const;
  void unbind();  // the objects held by id back to the key table

  // The calls' one body each, over ObjectKeys or bound ids.
  template <class Key>
  L2Completion store(std::span<const Key> keys, std::span<const uint64_t> sizes);
  template <class Key>
  L2Completion lookup_and_lock(std::span<const Key> keys);
  template <class Key>
  L2Completion load(std::span<const Key> keys, std::span<const uint64_t> sizes);
  template <class Key>
  void unlock(std::span<const Key> keys);
  uint64_t deliver(L2Completion c);  // the task id

  uint64_t capacity_;
  uint64_t bandwidth_;
  uint64_t current_ = 0;
  uint64_t next_task_ = 0;
  Objects objects_;  // the keys not bound
  // By bound key id; mutable as the const finds hand out entries the calls then change.
  mutable std::vector<Entry> by_id_;
  mutable KeyTable<uint32_t> bound_index_;  // bound key -> id, once an ObjectKey call needs it
  mutable bool bound_index_built_ = false;
};

}  // namespace fleet::storage
