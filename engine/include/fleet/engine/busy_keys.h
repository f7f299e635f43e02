// Keys with L2 work under way (issue 40, causal pacing): a write-behind store queued or in
// flight, or a prefetch not finished. The causal schedule asks before a prefetch (did the stores
// of its keys land?) and before a read (did the prefetch of its keys finish?), the completion
// edges of LMCache's RFC #4501 replayer. Counted per key, since a key can be in several at once;
// only engines that follow the trace's time keep it (it costs a hash lookup per key).
#pragma once

#include <unordered_map>
#include <vector>

#include "fleet/engine/key_hash.h"
#include "fleet/trace/types.h"

namespace fleet::storage {

class BusyKeys {
 public:
  explicit BusyKeys(bool enabled) : enabled_(enabled) {}

  void add(const std::vector<trace::ObjectKey>& keys) {
    if (!enabled_) return;
    for (const auto& k : keys) ++count_[k];
  }
  void remove(const std::vector<trace::ObjectKey>& keys) {
    if (!enabled_) return;
    for (const auto& k : keys)
      if (auto it = count_.find(k); it != count_.end() && --it->second <= 0) count_.erase(it);
  }
  bool any(const std::vector<trace::ObjectKey>& keys) const {
    if (count_.empty()) return false;
    for (const auto& k : keys)
      if (count_.count(k)) return true;
    return false;
  }
  void clear() { count_.clear(); }

 private:
  bool enabled_;
  std::unordered_map<trace::ObjectKey, int, KeyHash> count_;
};

}  // namespace fleet::storage
