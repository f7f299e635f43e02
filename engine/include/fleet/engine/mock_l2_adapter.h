// LMCache's era-3 `mock` L2 adapter (docs/era3-reference.md §6.2): an in-memory store keyed by the
// full ObjectKey, skip-when-full capacity, lookup lock counts, and the bandwidth model: a store
// or load completes bytes/bandwidth after it was submitted, on the engine Clock. It keeps sizes
// only (the payload of a zero-filled buffer carries no information; docs/engine.md).
#pragma once

#include <nlohmann/json.hpp>

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
  L2Usage usage() const override { return {current_, capacity_}; }

  bool contains(const trace::ObjectKey& k) const { return objects_.find(k) != Objects::npos; }
  int64_t lock_count(const trace::ObjectKey& k) const;
  uint64_t capacity_bytes() const { return capacity_; }
  uint64_t bandwidth_bytes_per_s() const { return bandwidth_; }
  // Transfer time of `bytes` under the bandwidth model.
  int64_t transfer_ns(uint64_t bytes) const;

 private:
  struct Entry {
    uint64_t size = 0;
    int64_t locks = 0;
  };
  uint64_t capacity_;
  uint64_t bandwidth_;
  uint64_t current_ = 0;
  uint64_t next_task_ = 0;
  using Objects = KeyTable<Entry>;
  Objects objects_;
};

}  // namespace fleet::storage
