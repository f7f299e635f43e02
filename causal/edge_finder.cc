#include "fleet/causal/edge_finder.h"

#include <algorithm>
#include <cmath>

namespace fleet::causal {

uint64_t edge_key_id(const trace::ObjectKey& key) { return trace::ObjectKeyHash{}(key); }

namespace {

int64_t gap_ns(double parent_t, double child_t) {
  const double gap = child_t - parent_t;  // t_mono is not guaranteed monotone: never negative
  return gap > 0.0 ? static_cast<int64_t>(std::llround(gap * 1e9)) : 0;
}

}  // namespace

// The record's edges so far: which kinds were counted, and the latest instant they ask for.
class EdgeFinder::Binding {
 public:
  bool first_of(EdgeKind k) {
    const auto bit = 1u << static_cast<unsigned>(k);
    const bool first = (kinds_ & bit) == 0;
    kinds_ |= bit;
    return first;
  }
  void constrain(int64_t not_before, EdgeKind k, int64_t gap) {
    if (not_before > hold_.not_before_ns) hold_ = Hold{not_before, k, gap};
  }
  Hold hold() const { return hold_; }

 private:
  unsigned kinds_ = 0;
  Hold hold_;
};

EdgeFinder::EdgeFinder(EdgeFinderOptions options) : options_(options) {}

EdgeFinder::KeyState& EdgeFinder::state(uint64_t key, double t) {
  KeyState& s = keys_[key];
  s.newest_t = std::max(s.newest_t, t);
  return s;
}

EdgeFinder::KeyState* EdgeFinder::find(uint64_t key) {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

void EdgeFinder::add_edge(Binding& b, EdgeKind kind, const Stamp& parent, double t, bool gap_edge) {
  const size_t i = static_cast<size_t>(kind);
  const bool first = b.first_of(kind);
  if (first) ++counts_.found[i];
  if (first && parent.node != node_) ++counts_.cut[i];
  const int64_t recorded = gap_ns(parent.t, t);
  // An order edge whose recorded gap reached a lock TTL keeps it whole: the recorded server's
  // lock had expired in between, and the replay's must too.
  const double ttl = kind == EdgeKind::AccessWrite ? options_.write_ttl_s : options_.read_ttl_s;
  const bool ttl_kept = !gap_edge && static_cast<double>(recorded) >= ttl * 1e9;
  if (ttl_kept && first) ++counts_.ttl_kept[i];
  const auto horizon = static_cast<int64_t>(std::llround(options_.horizon_s * 1e9));
  const int64_t kept = ttl_kept ? recorded : std::min(recorded, horizon);
  if (gap_edge || ttl_kept) b.constrain(parent.issue_ns + kept, kind, recorded);
}

Hold EdgeFinder::before_issue(const trace::Op& op) {
  expire(op.t_mono);
  Binding b;
  const double t = op.t_mono;
  switch (op.kind) {
    case trace::OpKind::FinishWrite:
    case trace::OpKind::AbortWrite:
      for (const auto& k : op.keys) {
        KeyState* s = find(edge_key_id(k));
        if (s && s->reserve.set) add_edge(b, EdgeKind::WriteLifecycle, s->reserve, t, true);
        if (s) s->reserve.set = false;
      }
      break;
    case trace::OpKind::SubmitPrefetch:
      for (const auto& k : op.spec.keys) {
        KeyState* s = find(edge_key_id(k));
        if (s && s->finished_write.set)
          add_edge(b, EdgeKind::ReadAfterWrite, s->finished_write, t, true);
        if (s) s->finished_write.set = false;  // the next prefetch only
      }
      break;
    case trace::OpKind::ReadEnter:
      read_lifecycle(b, op);
      break;
    case trace::OpKind::ReadExit:
      if (KeyState* s = op.keys.empty() ? nullptr : find(edge_key_id(op.keys.front()));
          s && s->enter.set)
        add_edge(b, EdgeKind::EnterExit, s->enter, t, false);
      break;
    case trace::OpKind::FinishRead:
      for (const auto& k : op.keys)
        if (KeyState* s = find(edge_key_id(k)); s && s->exit.set)
          add_edge(b, EdgeKind::ExitFinish, s->exit, t, false);
      break;
    case trace::OpKind::ReserveWrite:
      for (const auto& k : op.keys)
        if (KeyState* s = find(edge_key_id(k)); s && s->access.set)
          add_edge(b, EdgeKind::AccessWrite, s->access, t, false);
      break;
    case trace::OpKind::Unknown:
      break;
  }
  return b.hold();
}

void EdgeFinder::read_lifecycle(Binding& b, const trace::Op& op) {
  if (op.keys.empty()) return;
  scratch_ids_.clear();
  for (const auto& k : op.keys) scratch_ids_.push_back(edge_key_id(k));
  KeyState* first = find(scratch_ids_.front());
  if (!first) return;
  std::sort(scratch_ids_.begin(), scratch_ids_.end());
  if (Prefetch* p = newest_unmatched_prefetch(*first, scratch_ids_)) {
    p->matched = true;
    add_edge(b, EdgeKind::ReadLifecycle, Stamp{p->t, p->issue_ns, true, p->node}, op.t_mono, true);
  }
}

// The newest prefetch still waiting for its __enter__ whose keys include the whole tuple. Not
// the oldest: a prefetch no read follows (every key missed) would stay unmatched for a TTL and
// capture the next read of its keys (a shared system prompt's), shifting every later pairing
// by one request (measured: read_lifecycle gaps of 80 ms p50 instead of 1-2 ms).
EdgeFinder::Prefetch* EdgeFinder::newest_unmatched_prefetch(KeyState& first,
                                                            const std::vector<uint64_t>& tuple) {
  auto& ids = first.prefetch_ids;
  std::erase_if(ids, [this](uint64_t id) {
    return id < first_prefetch_id_ || prefetches_[id - first_prefetch_id_].matched;
  });
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Prefetch& p = prefetches_[*it - first_prefetch_id_];
    if (std::includes(p.keys.begin(), p.keys.end(), tuple.begin(), tuple.end())) return &p;
  }
  return nullptr;
}

void EdgeFinder::after_issue(const trace::Op& op, int64_t issue_ns) {
  const double t = op.t_mono;
  const Stamp now{t, issue_ns, true, node_};
  switch (op.kind) {
    case trace::OpKind::ReserveWrite:
      for (const auto& k : op.keys) state(edge_key_id(k), t).reserve = now;
      break;
    case trace::OpKind::FinishWrite:
      for (const auto& k : op.keys) {
        KeyState& s = state(edge_key_id(k), t);
        s.finished_write = s.access = now;
      }
      break;
    case trace::OpKind::AbortWrite:
      for (const auto& k : op.keys) state(edge_key_id(k), t).access = now;
      break;
    case trace::OpKind::SubmitPrefetch: {
      const uint64_t id = first_prefetch_id_ + prefetches_.size();
      Prefetch& p = prefetches_.emplace_back(Prefetch{t, issue_ns, node_, {}, false});
      for (const auto& k : op.spec.keys) {
        const uint64_t key = edge_key_id(k);
        p.keys.push_back(key);
        std::vector<uint64_t>& ids = state(key, t).prefetch_ids;
        if (!ids.empty() && ids.front() < first_prefetch_id_)  // expired: bounded by the TTL
          std::erase_if(ids, [this](uint64_t i) { return i < first_prefetch_id_; });
        ids.push_back(id);
      }
      std::sort(p.keys.begin(), p.keys.end());
      break;
    }
    case trace::OpKind::ReadEnter:
      for (const auto& k : op.keys) state(edge_key_id(k), t).enter = now;
      break;
    case trace::OpKind::ReadExit:
      for (const auto& k : op.keys) state(edge_key_id(k), t).exit = now;
      break;
    case trace::OpKind::FinishRead:
      for (const auto& k : op.keys) state(edge_key_id(k), t).access = now;
      break;
    case trace::OpKind::Unknown:
      break;
  }
}

// Forgets what is older than the longest TTL (keys) or the read TTL (prefetches), a sweep per
// eighth of a TTL of trace time: memory stays bounded by the TTL window's keys.
void EdgeFinder::expire(double t) {
  while (!prefetches_.empty() &&
         (prefetches_.front().matched || prefetches_.front().t < t - options_.read_ttl_s)) {
    prefetches_.pop_front();
    ++first_prefetch_id_;
  }
  if (t < next_sweep_t_) return;
  const double horizon = std::max(options_.read_ttl_s, options_.write_ttl_s);
  next_sweep_t_ = t + horizon / 8;
  std::erase_if(keys_, [&](const auto& kv) { return kv.second.newest_t < t - horizon; });
}

}  // namespace fleet::causal
