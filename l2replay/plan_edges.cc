// The fork's dependency rules (docs/l2-traces.md, "The replay plan"): a lookup waits for the
// latest successful store of each key it hit that completed before the lookup was submitted; a
// load for its request's lookups; an unlock for its request's loads, or its lookups when the
// selection holds no load; stores and deletes wait for nothing.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "plan_reading.h"

namespace fleet::l2replay::detail {

StoresByKey successful_stores(const L2Plan& plan) {
  StoresByKey out;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2PlanOp& op = plan.ops[i];
    if (op.op != L2Op::Store || !op.source_completed || !op.source_succeeded) continue;
    for (const auto& k : op.keys) out[k].push_back({op.completion_sequence, i});
  }
  for (auto& [k, v] : out) {
    std::sort(v.begin(), v.end(), [](const StoreDone& a, const StoreDone& b) {
      return a.completion_sequence < b.completion_sequence;
    });
  }
  return out;
}

namespace {

void add_dep(L2PlanOp& op, uint32_t dep) {
  if (std::find(op.deps.begin(), op.deps.end(), dep) == op.deps.end()) op.deps.push_back(dep);
}

void link_lookup(L2Plan& plan, uint32_t i, const StoresByKey& stores) {
  L2PlanOp& op = plan.ops[i];
  for (int64_t hit : op.source_indices) {
    if (hit < 0 || static_cast<uint64_t>(hit) >= op.keys.size()) continue;
    auto it = stores.find(op.keys[static_cast<size_t>(hit)]);
    if (it == stores.end()) continue;
    const StoreDone* latest_before = nullptr;
    bool overlapped = false;
    for (const StoreDone& s : it->second) {
      if (s.completion_sequence < op.sequence) latest_before = &s;
      if (s.completion_sequence > op.sequence && s.completion_sequence < op.completion_sequence)
        overlapped = true;
    }
    if (latest_before) add_dep(op, latest_before->op);
    plan.overlapping_store_hits += overlapped;
  }
}

struct Request {
  std::vector<uint32_t> lookups;
  std::vector<uint32_t> loads;
};

void count_edges(L2Plan& plan) {
  for (const L2PlanOp& op : plan.ops) {
    for (uint32_t d : op.deps) {
      const L2PlanOp& dep = plan.ops[d];
      ++plan.edge_counts[std::string(trace::l2_op_name(op.op)) + "->" +
                         std::string(trace::l2_op_name(dep.op))];
      plan.forward_edges += dep.sequence > op.sequence;
    }
  }
}

}  // namespace

void link_dependencies(L2Plan& plan, const StoresByKey& stores) {
  std::unordered_map<int64_t, Request> requests;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2PlanOp& op = plan.ops[i];
    if (op.op == L2Op::LookupTask) requests[op.request_id].lookups.push_back(i);
    if (op.op == L2Op::LoadTask) requests[op.request_id].loads.push_back(i);
  }
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    L2PlanOp& op = plan.ops[i];
    if (op.op == L2Op::LookupTask && op.source_completed) link_lookup(plan, i, stores);
    if (op.op != L2Op::LoadTask && op.op != L2Op::Unlock) continue;
    auto it = requests.find(op.request_id);
    if (it == requests.end()) continue;
    const Request& r = it->second;
    op.deps = (op.op == L2Op::Unlock && !r.loads.empty()) ? r.loads : r.lookups;
  }
  count_edges(plan);
}

namespace {

// The size a prepared key is stored with: the last recorded object size of the key among the
// selected stores and loads, else its object group's layout in the lookup that found it.
class Sizes {
 public:
  explicit Sizes(const L2Plan& plan) {
    for (const L2PlanOp& op : plan.ops) {
      if (op.op != L2Op::Store && op.op != L2Op::LoadTask) continue;
      for (size_t i = 0; i < op.keys.size() && i < op.sizes.size(); ++i)
        recorded_[op.keys[i]] = op.sizes[i];
    }
  }
  bool size_of(const trace::ObjectKey& k, const L2PlanOp& lookup, uint64_t& out) const {
    if (auto it = recorded_.find(k); it != recorded_.end()) return (out = it->second), true;
    for (const auto& [gid, bytes] : lookup.group_sizes) {
      if (gid == k.object_group_id) return (out = bytes), true;
    }
    return false;
  }

 private:
  std::unordered_map<trace::ObjectKey, uint64_t, trace::ObjectKeyHash> recorded_;
};

}  // namespace

void plan_preparation(L2Plan& plan, const StoresByKey& stores) {
  const Sizes sizes(plan);
  std::unordered_set<trace::ObjectKey, trace::ObjectKeyHash> seen;
  for (const L2PlanOp& op : plan.ops) {
    if (op.op != L2Op::LookupTask) continue;
    if (op.group_sizes.empty()) {  // the fork refuses such a lookup when it dispatches it
      throw std::runtime_error(plan.path + ": record " + std::to_string(op.sequence) +
                               ": L2 lookup submission is missing layout metadata");
    }
    std::unordered_set<trace::ObjectKey, trace::ObjectKeyHash> hits;
    for (int64_t h : op.source_indices) {
      if (h >= 0 && static_cast<uint64_t>(h) < op.keys.size()) hits.insert(op.keys[size_t(h)]);
    }
    for (const auto& k : op.keys) {
      if (!seen.insert(k).second || !op.source_completed || !hits.count(k)) continue;
      auto st = stores.find(k);  // a store of it completed before the lookup did: not prepared
      if (st != stores.end() && st->second.front().completion_sequence < op.completion_sequence)
        continue;
      uint64_t size = 0;
      if (!sizes.size_of(k, op, size)) {
        throw std::runtime_error(plan.path + ": record " + std::to_string(op.sequence) +
                                 ": L2 lookup submission is missing layout metadata");
      }
      plan.prepare.push_back({k, size});
    }
  }
}

}  // namespace fleet::l2replay::detail
