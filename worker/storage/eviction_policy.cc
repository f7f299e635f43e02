#include "fleet/storage/eviction_policy.h"

#include "fleet/storage/arc_policy.h"

#include <stdexcept>
#include <string>

namespace fleet::storage {

void LruPolicy::unlink(Link* l) {
  (l->prev ? l->prev->next : lru_) = l->next;
  (l->next ? l->next->prev : mru_) = l->prev;
  l->prev = l->next = nullptr;
}

void LruPolicy::push_mru(Link* l) {
  l->prev = mru_;
  l->next = nullptr;
  (mru_ ? mru_->next : lru_) = l;
  mru_ = l;
}

void LruPolicy::on_keys_created(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto [it, inserted] = index_.try_emplace(*k);
    Link* l = &it->second;
    if (inserted) {
      l->key = &it->first;
    } else {
      if (l == mru_) continue;
      unlink(l);
    }
    push_mru(l);
  }
}

void LruPolicy::on_keys_touched(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto it = index_.find(*k);
    if (it == index_.end() || &it->second == mru_) continue;
    unlink(&it->second);
    push_mru(&it->second);
  }
}

void LruPolicy::on_keys_removed(const KeyList& keys) {
  for (const auto& k : keys) {
    auto it = index_.find(k);
    if (it == index_.end()) continue;
    unlink(&it->second);
    index_.erase(it);
  }
}

KeyList LruPolicy::get_eviction_victims(double ratio, const KeyFilter& eligible) {
  if (ratio < 0) ratio = 0;
  if (ratio > 1) ratio = 1;
  size_t target = static_cast<size_t>(static_cast<double>(index_.size()) * ratio);
  if (target == 0 && ratio > 0) target = 1;
  KeyList out;
  for (const Link* l = lru_; l && out.size() < target; l = l->next) {
    if (eligible && !eligible(*l->key)) continue;
    out.push_back(*l->key);
  }
  return out;
}

KeyList LruPolicy::order() const {
  KeyList out;
  out.reserve(index_.size());
  for (const Link* l = lru_; l; l = l->next) out.push_back(*l->key);
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
