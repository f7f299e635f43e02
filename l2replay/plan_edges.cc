// The fork's dependency rules (docs/l2-traces.md, "The replay plan"): a lookup waits for the
// latest successful store of each key it hit that completed before the lookup was submitted; a
// load for its request's lookups; an unlock for its request's loads, or its lookups when the
// selection holds no load; stores and deletes wait for nothing.
#include <algorithm>
#include <string>

#include "plan_reading.h"
#include "request_lists.h"

namespace fleet::l2replay::detail {

StoresByKey successful_stores(const L2Plan& plan) {
  auto succeeded = [](const L2PlanOp& op) {
    return op.op == L2Op::Store && op.source_completed && op.source_succeeded;
  };
  StoresByKey out;
  out.at.assign(plan.keys.size() + 1, 0);
  for (uint32_t i = 0; i < plan.ops.size(); ++i)
    if (succeeded(plan.ops[i]))
      for (uint32_t k : plan.key_ids(plan.ops[i])) ++out.at[k + 1];
  for (size_t k = 1; k < out.at.size(); ++k) out.at[k] += out.at[k - 1];
  out.done.resize(out.at.back());
  std::vector<uint32_t> fill(out.at.begin(), out.at.end() - 1);
  for (uint32_t i = 0; i < plan.ops.size(); ++i)
    if (succeeded(plan.ops[i]))
      for (uint32_t k : plan.key_ids(plan.ops[i]))
        out.done[fill[k]++] = {plan.ops[i].completion_sequence, i};
  // Filled in submission order, a key's stores are nearly always in completion order already:
  // checking is a compare per store, where a sort call per key (a million keys) cost ~20 ms.
  auto by_completion = [](const StoreDone& a, const StoreDone& b) {
    return a.completion_sequence < b.completion_sequence;
  };
  for (uint32_t k = 0; k < plan.keys.size(); ++k) {
    const auto first = out.done.begin() + out.at[k], last = out.done.begin() + out.at[k + 1];
    if (!std::is_sorted(first, last, by_completion)) std::sort(first, last, by_completion);
  }
  return out;
}

namespace {

void add_dep(std::vector<uint32_t>& deps, uint32_t dep) {
  if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
}

// The lookup's dependencies into `deps`.
void link_lookup(L2Plan& plan, uint32_t i, const StoresByKey& stores, std::vector<uint32_t>& deps) {
  const L2PlanOp& op = plan.ops[i];
  const std::span<const uint32_t> ids = plan.key_ids(op);
  for (int64_t hit : plan.source_indices(op)) {
    if (hit < 0 || static_cast<uint64_t>(hit) >= ids.size()) continue;
    const StoreDone* latest_before = nullptr;
    bool overlapped = false;
    for (const StoreDone& s : stores.of(ids[static_cast<size_t>(hit)])) {
      if (s.completion_sequence < op.sequence) latest_before = &s;
      if (s.completion_sequence > op.sequence && s.completion_sequence < op.completion_sequence)
        overlapped = true;
    }
    if (latest_before) add_dep(deps, latest_before->op);
    plan.overlapping_store_hits += overlapped;
  }
}

void count_edges(L2Plan& plan) {
  // Per (dependent, dependency) kind first: a string key per edge would cost a map lookup each.
  constexpr size_t kOps = static_cast<size_t>(L2Op::None) + 1;
  uint64_t counts[kOps][kOps] = {};
  for (const L2PlanOp& op : plan.ops) {
    for (uint32_t d : plan.deps(op)) {
      const L2PlanOp& dep = plan.ops[d];
      ++counts[static_cast<size_t>(op.op)][static_cast<size_t>(dep.op)];
      plan.forward_edges += dep.sequence > op.sequence;
    }
  }
  for (size_t a = 0; a < kOps; ++a) {
    for (size_t b = 0; b < kOps; ++b) {
      if (counts[a][b] == 0) continue;
      plan.edge_counts[std::string(trace::l2_op_name(static_cast<L2Op>(a))) + "->" +
                       std::string(trace::l2_op_name(static_cast<L2Op>(b)))] += counts[a][b];
    }
  }
}

// A load waits for every lookup of its request and an unlock for every load of it: k lookups
// and m loads of one request make k * m edges. LMCache's requests have one or two of each; a
// trace whose operations share one request id by the thousand would need memory quadratic in
// them, so the plan stops at this many edges per operation (a lookup's are at most its hits).
constexpr uint64_t kMaxEdgesPerOp = 64;

Status too_many_edges(const L2Plan& plan, const L2PlanOp& op, size_t lookups, size_t loads) {
  return Status::error(plan.path + ": record " + std::to_string(op.sequence) + ": request " +
                       std::to_string(op.request_id) + " has " + std::to_string(lookups) +
                       " lookups and " + std::to_string(loads) +
                       " loads: its dependency edges would pass " + std::to_string(kMaxEdgesPerOp) +
                       " per operation of the plan (one request id shared by many requests?)");
}

}  // namespace

Status link_dependencies(L2Plan& plan, const StoresByKey& stores) {
  const RequestLists requests(plan);
  const uint64_t budget = kMaxEdgesPerOp * (plan.ops.size() + 1024);
  // Each op's dependencies are appended in op order: the pool is the ops' lists back to back.
  plan.dep_pool.clear();
  std::vector<uint32_t> deps;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2PlanOp& op = plan.ops[i];
    if (op.op == L2Op::LookupTask && op.source_completed) {
      deps.clear();
      link_lookup(plan, i, stores, deps);
      plan.ops[i].deps = L2Plan::append(plan.dep_pool, deps);
    } else if (op.op == L2Op::LoadTask || op.op == L2Op::Unlock) {
      const std::span<const uint32_t> loads = requests.loads_of(i);
      const std::span<const uint32_t> lookups = requests.lookups_of(i);
      const bool on_loads = op.op == L2Op::Unlock && !loads.empty();
      const std::span<const uint32_t> on = on_loads ? loads : lookups;
      if (plan.dep_pool.size() + on.size() > budget)
        return too_many_edges(plan, op, lookups.size(), loads.size());
      plan.ops[i].deps = L2Plan::append(plan.dep_pool, on);
    } else {
      plan.ops[i].deps = {static_cast<uint32_t>(plan.dep_pool.size()), 0};
    }
  }
  count_edges(plan);
  return Status();
}

namespace {

constexpr uint64_t kNoSize = UINT64_MAX;

// The size a prepared key is stored with: the last recorded object size of the key among the
// selected stores and loads, else its object group's layout in the lookup that found it.
class Sizes {
 public:
  explicit Sizes(const L2Plan& plan) : recorded_(plan.keys.size(), kNoSize) {
    for (const L2PlanOp& op : plan.ops) {
      if (op.op != L2Op::Store && op.op != L2Op::LoadTask) continue;
      const std::span<const uint32_t> ids = plan.key_ids(op);
      const std::span<const uint64_t> sizes = plan.sizes(op);
      for (size_t k = 0; k < ids.size() && k < sizes.size(); ++k) recorded_[ids[k]] = sizes[k];
    }
  }
  bool size_of(uint32_t id, int64_t group, std::span<const std::pair<int64_t, uint64_t>> layouts,
               uint64_t& out) const {
    if (recorded_[id] != kNoSize) return (out = recorded_[id]), true;
    for (const auto& [gid, bytes] : layouts) {
      if (gid == group) return (out = bytes), true;
    }
    return false;
  }

 private:
  std::vector<uint64_t> recorded_;  // by key id; kNoSize: none recorded
};

Status missing_layout(const L2Plan& plan, const L2PlanOp& lookup) {
  return Status::error(plan.path + ": record " + std::to_string(lookup.sequence) +
                       ": L2 lookup submission is missing layout metadata");
}

}  // namespace

Status plan_preparation(L2Plan& plan, const StoresByKey& stores) {
  const Sizes sizes(plan);
  std::vector<bool> seen(plan.keys.size(), false);
  std::vector<uint32_t> hit_by(plan.keys.size(), UINT32_MAX);  // the lookup that hit the key last
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2PlanOp& op = plan.ops[i];
    if (op.op != L2Op::LookupTask) continue;
    if (op.group_sizes.n == 0)  // the fork refuses such a lookup when it dispatches it
      return missing_layout(plan, op);
    const std::span<const uint32_t> ids = plan.key_ids(op);
    for (int64_t h : plan.source_indices(op))
      if (h >= 0 && static_cast<uint64_t>(h) < ids.size()) hit_by[ids[size_t(h)]] = i;
    for (size_t k = 0; k < ids.size(); ++k) {
      const uint32_t id = ids[k];
      if (seen[id]) continue;
      seen[id] = true;
      if (!op.source_completed || hit_by[id] != i) continue;
      // A store of it completed before the lookup did: not prepared.
      const std::span<const StoreDone> st = stores.of(id);
      if (!st.empty() && st.front().completion_sequence < op.completion_sequence) continue;
      uint64_t size = 0;
      const trace::ObjectKey& key = plan.keys[id];
      if (!sizes.size_of(id, key.object_group_id, plan.group_sizes(op), size))
        return missing_layout(plan, op);
      plan.prepare.push_back({key, size, i});
    }
  }
  return Status();
}

}  // namespace fleet::l2replay::detail
