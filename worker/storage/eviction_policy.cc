#include "fleet/storage/eviction_policy.h"

#include "fleet/storage/arc_policy.h"

#include <stdexcept>
#include <string>

namespace fleet::storage {

void LruPolicy::on_keys_created(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto [it, inserted] = index_.try_emplace(*k);
    if (inserted) {
      it->second = order_.insert(order_.end(), &it->first);
    } else {
      order_.splice(order_.end(), order_, it->second);
    }
  }
}

void LruPolicy::on_keys_touched(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto it = index_.find(*k);
    if (it != index_.end()) order_.splice(order_.end(), order_, it->second);
  }
}

void LruPolicy::on_keys_removed(const KeyList& keys) {
  for (const auto& k : keys) {
    auto it = index_.find(k);
    if (it == index_.end()) continue;
    order_.erase(it->second);
    index_.erase(it);
  }
}

KeyList LruPolicy::get_eviction_victims(double ratio, const KeyFilter& eligible) {
  if (ratio < 0) ratio = 0;
  if (ratio > 1) ratio = 1;
  size_t target = static_cast<size_t>(static_cast<double>(index_.size()) * ratio);
  if (target == 0 && ratio > 0) target = 1;
  KeyList out;
  if (index_.empty()) return out;
  for (const trace::ObjectKey* k : order_) {
    if (out.size() >= target) break;
    if (eligible && !eligible(*k)) continue;
    out.push_back(*k);
  }
  return out;
}

KeyList LruPolicy::order() const {
  KeyList out;
  out.reserve(order_.size());
  for (const auto* k : order_) out.push_back(*k);
  return out;
}

std::unique_ptr<EvictionPolicy> make_eviction_policy(std::string_view name) {
  if (name == "LRU" || name == "IsolatedLRU") return std::make_unique<LruPolicy>();
  if (name == "noop") return std::make_unique<NoopPolicy>();
  if (name == "ARC") return std::make_unique<ArcPolicy>();
  throw std::invalid_argument("--eviction-policy: unknown policy '" + std::string(name) +
                              "' (choices: LRU, IsolatedLRU, ARC, noop)");
}

}  // namespace fleet::storage
