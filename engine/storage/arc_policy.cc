#include "fleet/engine/arc_policy.h"

#include <algorithm>

namespace fleet::storage {

void ArcPolicy::place(const trace::ObjectKey& k, List to) {
  auto it = where_.find(k);
  Order& dst = order_of(to);
  if (it == where_.end()) {
    dst.push_back(k);
    where_.emplace(k, Where{to, std::prev(dst.end())});
    return;
  }
  dst.splice(dst.end(), order_of(it->second.list), it->second.it);
  it->second.list = to;
}

void ArcPolicy::forget(const trace::ObjectKey& k) {
  auto it = where_.find(k);
  if (it == where_.end()) return;
  order_of(it->second.list).erase(it->second.it);
  where_.erase(it);
}

void ArcPolicy::pop_oldest(List l) {
  Order& o = order_of(l);
  where_.erase(o.front());
  o.pop_front();
}

// B1 never holds more than capacity - |T1|; all four lists together at most 2 * capacity
// (oldest B2 ghosts go first, then B1).
void ArcPolicy::trim_ghosts() {
  if (capacity_ == 0) return;
  while (size_of(List::T1) + size_of(List::B1) > capacity_ && size_of(List::B1) > 0)
    pop_oldest(List::B1);
  while (where_.size() > 2 * capacity_) {
    if (size_of(List::B2) > 0)
      pop_oldest(List::B2);
    else if (size_of(List::B1) > 0)
      pop_oldest(List::B1);
    else
      break;
  }
}

void ArcPolicy::on_keys_created(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    pending_.erase(*k);
    auto it = where_.find(*k);
    if (it == where_.end()) {
      place(*k, List::T1);
    } else {
      // A created key that is resident counts as an access (LMCache reports updates here too).
      const double b1 = static_cast<double>(size_of(List::B1));
      const double b2 = static_cast<double>(size_of(List::B2));
      switch (it->second.list) {
        case List::T1:
        case List::T2:
          break;
        case List::B1:
          target_t1_ =
              std::min(static_cast<double>(capacity_), target_t1_ + std::max(1.0, b2 / b1));
          break;
        case List::B2:
          target_t1_ = std::max(0.0, target_t1_ - std::max(1.0, b1 / b2));
          break;
      }
      place(*k, List::T2);
    }
    capacity_ = std::max(capacity_, resident());
    trim_ghosts();
  }
}

void ArcPolicy::on_keys_touched(const KeyList& keys) {
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    auto it = where_.find(*k);
    if (it != where_.end() && (it->second.list == List::T1 || it->second.list == List::T2))
      place(*k, List::T2);
  }
}

void ArcPolicy::on_keys_removed(const KeyList& keys) {
  for (const auto& k : keys) {
    auto it = where_.find(k);
    if (pending_.erase(k) && it != where_.end()) {
      // A victim we chose, confirmed deleted: it becomes a ghost of its list.
      if (it->second.list == List::T1)
        place(k, List::B1);
      else if (it->second.list == List::T2)
        place(k, List::B2);
    } else {
      forget(k);  // any other deletion is lifecycle, not ARC feedback
    }
  }
  trim_ghosts();
}

KeyList ArcPolicy::get_eviction_victims(double ratio, const KeyFilter& eligible) {
  KeyList victims;
  const size_t n = resident();
  if (n == 0) return victims;
  ratio = std::clamp(ratio, 0.0, 1.0);
  size_t target = static_cast<size_t>(static_cast<double>(n) * ratio);
  if (ratio > 0 && target == 0) target = 1;
  if (target == 0) return victims;
  capacity_ = std::max(capacity_, n);
  target_t1_ = std::min(target_t1_, static_cast<double>(capacity_));
  trim_ghosts();

  // Each list is walked once, oldest first; a key taken from T1 lowers T1's virtual size.
  const Order& t1 = order_of(List::T1);
  const Order& t2 = order_of(List::T2);
  auto i1 = t1.begin();
  auto i2 = t2.begin();
  auto next_from = [&](Order::const_iterator& i, const Order& o) -> const trace::ObjectKey* {
    for (; i != o.end(); ++i)
      if (!eligible || eligible(*i)) return &*i++;
    return nullptr;
  };
  size_t virtual_t1 = t1.size();
  while (victims.size() < target) {
    const trace::ObjectKey* pick = nullptr;
    if (virtual_t1 >= static_cast<size_t>(target_t1_)) {
      pick = next_from(i1, t1);
      if (pick) --virtual_t1;
    }
    if (!pick) pick = next_from(i2, t2);
    if (!pick) {
      pick = next_from(i1, t1);
      if (pick) --virtual_t1;
    }
    if (!pick) break;
    victims.push_back(*pick);
  }
  pending_.insert(victims.begin(), victims.end());
  return victims;
}

KeyList ArcPolicy::list(List which) const {
  const Order& o = order_of(which);
  return KeyList(o.begin(), o.end());
}

KeyList ArcPolicy::order() const {
  KeyList out = list(List::T1);
  for (const auto& k : order_of(List::T2)) out.push_back(k);
  return out;
}

}  // namespace fleet::storage
