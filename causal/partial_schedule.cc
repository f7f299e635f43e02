#include "fleet/causal/partial_schedule.h"

#include <algorithm>
#include <memory>

namespace fleet::causal {

void PartialSchedule::key_ids(const trace::Op& op, std::vector<uint64_t>& out) const {
  out.clear();
  for (const auto& k : op.op_keys()) out.push_back(edge_key_id(k));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool PartialSchedule::blocked(const trace::Op& op) {
  if (parked_ == 0) return false;
  key_ids(op, scratch_);
  for (uint64_t k : scratch_)
    if (auto it = chains_.find(k); it != chains_.end() && !it->second.empty()) return true;
  return false;
}

void PartialSchedule::park(Entry e, bool blocked) {
  auto slot = std::make_shared<Entry>(std::move(e));
  key_ids(slot->op, scratch_);
  for (uint64_t k : scratch_) chains_[k].push_back(slot);
  ++parked_;
  if (!blocked) ready_.emplace(std::make_pair(slot->target_ns, slot->seq), slot);
}

std::optional<PartialSchedule::Entry> PartialSchedule::pop_ready(int64_t limit_ns) {
  if (ready_.empty() || ready_.begin()->first.first > limit_ns) return std::nullopt;
  Slot s = ready_.begin()->second;
  ready_.erase(ready_.begin());
  return *s;
}

bool PartialSchedule::at_head(const Slot& s) {
  std::vector<uint64_t> ids;
  key_ids(s->op, ids);
  for (uint64_t k : ids)
    if (chains_[k].front() != s) return false;
  return true;
}

void PartialSchedule::make_ready(const Slot& s, int64_t not_before) {
  s->hold = edges_.before_issue(s->op);
  s->target_ns = std::max({s->scaled_ns, s->hold.not_before_ns, not_before});
  ready_.emplace(std::make_pair(s->target_ns, s->seq), s);
}

void PartialSchedule::issued(const Entry& e) {
  --parked_;
  std::vector<uint64_t> ids;
  key_ids(e.op, ids);
  std::vector<Slot> next;
  for (uint64_t k : ids) {
    auto it = chains_.find(k);
    if (it == chains_.end() || it->second.empty()) continue;
    it->second.pop_front();  // e was at the head of every one of its keys
    if (it->second.empty()) {
      chains_.erase(it);
    } else if (std::find(next.begin(), next.end(), it->second.front()) == next.end()) {
      next.push_back(it->second.front());
    }
  }
  // In recorded order, so that edges between them are found parent first.
  std::sort(next.begin(), next.end(), [](const Slot& a, const Slot& b) { return a->seq < b->seq; });
  for (const Slot& s : next)
    if (at_head(s)) make_ready(s, e.target_ns);
}

}  // namespace fleet::causal
