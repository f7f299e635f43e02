// LMCache's `fault_inject` L2 adapter: a decorator that makes chosen keys fail at load while
// lookups still report them present, producing gapped found-sets. Drops: exact batch positions
// (gap_indices), tail-relative positions round((1-r)(n-1)) (gap_tail_ratios, Python rounding),
// and a per-key bucket of blake2b-8(seed:hash_hex:model:rank:group:salt) mod 1e6 < rate*1e6.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

namespace fleet::storage {

struct FaultInjectConfig {
  nlohmann::json inner;
  double rate = 0.0;
  int64_t seed = 0;
  std::vector<int64_t> gap_indices;
  std::vector<double> gap_tail_ratios;
  // The decorator's options and its inner spec (not yet checked), or which field is wrong.
  static Result<FaultInjectConfig> from_json(const nlohmann::json& j);
};

class FaultInjectL2Adapter final : public L2Adapter {
 public:
  FaultInjectL2Adapter(const FaultInjectConfig& cfg, std::unique_ptr<L2Adapter> inner);
  std::string_view type() const override { return "fault_inject"; }
  void attach(L2AdapterContext ctx) override;

  uint64_t submit_store(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override {
    return inner_->submit_store(std::move(keys), std::move(sizes));
  }
  uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) override {
    return inner_->submit_lookup_and_lock(std::move(keys));
  }
  uint64_t submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  void submit_unlock(std::vector<trace::ObjectKey> keys) override {
    inner_->submit_unlock(std::move(keys));
  }
  std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>& keys) override {
    return inner_->delete_keys(keys);
  }
  L2Usage usage() const override { return inner_->usage(); }
  void close() override { inner_->close(); }

  // Positions of a load batch that are dropped (ascending).
  std::vector<size_t> drop_positions(const std::vector<trace::ObjectKey>& keys) const;
  bool should_drop_key(const trace::ObjectKey& key) const;
  L2Adapter& inner() { return *inner_; }

 private:
  FaultInjectConfig cfg_;
  std::unique_ptr<L2Adapter> inner_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::vector<trace::ObjectKey>> load_keys_;
  // Completions the inner adapter delivers before submit_load has recorded the task's keys.
  std::unordered_map<uint64_t, std::pair<int64_t, L2Completion>> early_;
};

}  // namespace fleet::storage
