// LMCache's L2 eviction controller (docs/era3-reference.md §3.5): for an adapter whose JSON has an
// `eviction` block, a policy of its own learns the adapter's keys (stored -> created, loaded ->
// touched, deleted -> removed) and, on each tick, when used/capacity >= trigger_watermark,
// `eviction_ratio` of the tracked keys are deleted from the adapter (no eligibility filter).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fleet/engine/engine_counters.h"
#include "fleet/engine/eviction_policy.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

namespace fleet::storage {

struct L2EvictionConfig {
  std::string eviction_policy = "LRU";  // LRU, IsolatedLRU or noop
  double trigger_watermark = 0.8;
  double eviction_ratio = 0.2;
  // The adapter's `eviction` block, or nullopt when it has none (or null); a malformed block
  // is refused naming the field.
  static Result<std::optional<L2EvictionConfig>> from_adapter_json(const nlohmann::json& spec);
};

class L2EvictionController {
 public:
  L2EvictionController(L2Adapter& adapter, const L2EvictionConfig& cfg);

  // A store or load completion of this adapter (with keys: the context's report_keys is set).
  void on_completion(const L2Completion& c);
  // One controller period: check usage, evict one batch when at or above the watermark.
  void tick(L2AdapterCounters& counters);
  const EvictionPolicy& policy() const { return *policy_; }

 private:
  L2Adapter& adapter_;
  L2EvictionConfig cfg_;
  std::unique_ptr<EvictionPolicy> policy_;
};

// LMCache wires an adapter only when it has a block and either a capacity or IsolatedLRU.
bool l2_eviction_wired(const L2EvictionConfig& cfg, const L2Adapter& adapter);

}  // namespace fleet::storage
