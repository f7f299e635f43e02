#include "fleet/engine/l2_eviction.h"

#include "fleet/engine/json_options.h"

namespace fleet::storage {

Result<std::optional<L2EvictionConfig>> L2EvictionConfig::from_adapter_json(
    const nlohmann::json& spec) {
  if (!spec.is_object() || !spec.contains("eviction") || spec["eviction"].is_null())
    return std::optional<L2EvictionConfig>();
  const auto& block = spec["eviction"];
  if (!block.is_object()) return Status::error("adapter 'eviction' must be a JSON object or null");
  JsonOptions o(block, "adapter 'eviction'");
  L2EvictionConfig c;
  o.optional_string("eviction_policy", c.eviction_policy);
  if (o.ok() && c.eviction_policy != "LRU" && c.eviction_policy != "IsolatedLRU" &&
      c.eviction_policy != "ARC" && c.eviction_policy != "noop")
    o.fail("eviction_policy",
           "must be LRU, IsolatedLRU, ARC or noop, not '" + c.eviction_policy + "'");
  o.optional_number("trigger_watermark", c.trigger_watermark, 0.0, 1.0);
  o.optional_number("eviction_ratio", c.eviction_ratio, 0.0, 1.0);
  if (!o.ok()) return o.status();
  return std::optional<L2EvictionConfig>(c);
}

bool l2_eviction_wired(const L2EvictionConfig& cfg, const L2Adapter& adapter) {
  return adapter.usage().capacity_bytes > 0 || cfg.eviction_policy == "IsolatedLRU";
}

L2EvictionController::L2EvictionController(L2Adapter& adapter, const L2EvictionConfig& cfg)
    : adapter_(adapter), cfg_(cfg), policy_(make_eviction_policy(cfg.eviction_policy)) {}

void L2EvictionController::on_completion(const L2Completion& c) {
  if (c.keys.empty() || c.kind == L2OpKind::Lookup) return;
  KeyList hit;
  for (size_t i = 0; i < c.keys.size(); ++i)
    if (i < c.bitmap.size() ? c.bitmap[i] != 0 : c.success) hit.push_back(c.keys[i]);
  if (hit.empty()) return;
  if (c.kind == L2OpKind::Store)
    policy_->on_keys_created(hit);
  else
    policy_->on_keys_touched(hit);
}

void L2EvictionController::tick(L2AdapterCounters& counters) {
  counters.eviction_ticks++;
  const double usage = adapter_.usage().usage_fraction();
  if (usage < 0 || usage < cfg_.trigger_watermark) return;  // -1: capacity unknown, skipped
  counters.eviction_ticks_triggered++;
  KeyList victims = policy_->get_eviction_victims(cfg_.eviction_ratio,
                                                  [](const trace::ObjectKey&) { return true; });
  if (victims.empty()) return;
  KeyList deleted = adapter_.delete_keys(victims);
  policy_->on_keys_removed(deleted);
  counters.evicted_keys += deleted.size();
  counters.eviction_locked_skips += victims.size() - deleted.size();
}

}  // namespace fleet::storage
