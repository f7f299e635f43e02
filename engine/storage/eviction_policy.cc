#include "fleet/engine/eviction_policy.h"

#include <stdexcept>
#include <string>

#include "fleet/engine/arc_policy.h"

namespace fleet::storage {

void LruPolicy::unlink(Slot s) {
  Link& l = index_.value(s);
  (l.prev != npos ? index_.value(l.prev).next : lru_) = l.next;
  (l.next != npos ? index_.value(l.next).prev : mru_) = l.prev;
  l.prev = l.next = npos;
}

void LruPolicy::push_mru(Slot s) {
  Link& l = index_.value(s);
  l.prev = mru_;
  l.next = npos;
  (mru_ != npos ? index_.value(mru_).next : lru_) = s;
  mru_ = s;
}

void LruPolicy::on_keys_created(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto [s, inserted] = index_.try_emplace(*k);
    if (!inserted) {
      if (s == mru_) continue;
      unlink(s);
    }
    push_mru(s);
  }
}

void LruPolicy::on_keys_touched(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    const Slot s = index_.find(*k);
    if (s == npos || s == mru_) continue;
    unlink(s);
    push_mru(s);
  }
}

void LruPolicy::on_keys_removed(const KeyList& keys) {
  for (const auto& k : keys) {
    const Slot s = index_.find(k);
    if (s == npos) continue;
    unlink(s);
    index_.erase(s);
  }
}

KeyList LruPolicy::get_eviction_victims(double ratio, const KeyFilter& eligible) {
  if (ratio < 0) ratio = 0;
  if (ratio > 1) ratio = 1;
  size_t target = static_cast<size_t>(static_cast<double>(index_.size()) * ratio);
  if (target == 0 && ratio > 0) target = 1;
  KeyList out;
  out.reserve(target);
  for (Slot s = lru_; s != npos && out.size() < target; s = index_.value(s).next) {
    if (eligible && !eligible(index_.key(s))) continue;
    out.push_back(index_.key(s));
  }
  return out;
}

KeyList LruPolicy::order() const {
  KeyList out;
  out.reserve(index_.size());
  for (Slot s = lru_; s != npos; s = index_.value(s).next) out.push_back(index_.key(s));
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
