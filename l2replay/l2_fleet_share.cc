#include "fleet/l2replay/l2_fleet_share.h"

#include <functional>
#include <queue>
#include <set>
#include <unordered_map>

#include "fleet/l2replay/l2_fleet_prepare.h"
#include "fleet/plan/shard_router.h"
#include "fleet/trace/types.h"

namespace fleet::l2replay {

namespace {

constexpr uint32_t kNowhere = UINT32_MAX;

std::string edge_kind(const L2PlanOp& op, const L2PlanOp& dep) {
  return std::string(trace::l2_op_name(op.op)) + "->" + std::string(trace::l2_op_name(dep.op));
}

// Key sharding's owner of every operation of one file (see build_l2_share).
class KeyOwners {
 public:
  explicit KeyOwners(const L2ShareOptions& o) {
    plan::RouterOptions r;
    r.mode = plan::ShardMode::Key;
    r.worker_names = o.worker_names;
    router_.emplace(std::move(r));
  }

  std::vector<int> of(const L2Plan& plan) const {
    std::unordered_map<int64_t, int> request_owner;  // the first lookup decides
    for (const L2PlanOp& op : plan.ops) {
      if (op.op == L2Op::LookupTask && op.request_id >= 0 && op.keys.n > 0)
        request_owner.try_emplace(op.request_id, owner_of_key(plan.keys[plan.key_ids(op)[0]]));
    }
    std::vector<int> owners(plan.ops.size());
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const L2PlanOp& op = plan.ops[i];
      if (op.request_id >= 0) {
        auto [it, fresh] = request_owner.try_emplace(op.request_id, first_key_owner(plan, op));
        owners[i] = it->second;  // a request without lookup: its first operation decides
      } else {
        owners[i] = first_key_owner(plan, op);
      }
    }
    return owners;
  }

 private:
  int owner_of_key(const trace::ObjectKey& k) const {
    return router_->owner_of(trace::chunk_identity_hash(k.model_name, k.chunk_hash));
  }
  int first_key_owner(const L2Plan& plan, const L2PlanOp& op) const {
    if (op.keys.n > 0) return owner_of_key(plan.keys[plan.key_ids(op)[0]]);
    return static_cast<int>(op.sequence % static_cast<uint64_t>(router_->workers()));
  }
  std::optional<plan::ShardRouter> router_;
};

// Merge order over the files: by aligned time, each file's own order kept, file index on ties.
std::vector<std::pair<size_t, uint32_t>> merge_order(const std::vector<L2Plan>& plans,
                                                     const std::vector<double>& shift) {
  using Head = std::tuple<double, size_t, uint32_t>;  // (aligned t, file, op)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (size_t f = 0; f < plans.size(); ++f)
    if (!plans[f].ops.empty()) heads.emplace(plans[f].ops[0].t_mono + shift[f], f, 0u);
  std::vector<std::pair<size_t, uint32_t>> order;
  while (!heads.empty()) {
    const auto [t, f, i] = heads.top();
    heads.pop();
    order.emplace_back(f, i);
    if (i + 1 < plans[f].ops.size()) heads.emplace(plans[f].ops[i + 1].t_mono + shift[f], f, i + 1);
  }
  return order;
}

void count_file_figures(const std::vector<L2Plan>& plans, L2ShareFigures& fig) {
  for (const L2Plan& p : plans) {
    fig.files.push_back(p.path);
    fig.source_operations.push_back(p.source_operations_total);
    fig.operations_in_files += p.ops.size();
    fig.forward_edges += p.forward_edges;
    fig.overlapping_store_hits += p.overlapping_store_hits;
  }
}

}  // namespace

std::optional<L2Shard> l2_shard_from_name(std::string_view name) {
  for (const auto& [n, s] : kL2ShardNames)
    if (n == name) return s;
  return std::nullopt;
}

std::string_view l2_shard_name(L2Shard shard) {
  for (const auto& [n, s] : kL2ShardNames)
    if (s == shard) return n;
  return "?";
}

std::vector<size_t> l2_files_of_node(size_t files, const L2ShareOptions& o) {
  std::vector<size_t> out;
  for (size_t f = 0; f < files; ++f)
    if (o.shard != L2Shard::Source ||
        f % static_cast<size_t>(o.node_count) == static_cast<size_t>(o.node_index))
      out.push_back(f);
  return out;
}

Result<L2Share> build_l2_share(std::vector<L2Plan> plans, const std::vector<size_t>& read,
                               const std::vector<double>& shift_s, const L2ShareOptions& o,
                               std::vector<L2PrepareClaim> other_claims) {
  if (o.shard == L2Shard::Key &&
      (o.worker_names.empty() || o.worker_names.size() != static_cast<size_t>(o.node_count)))
    return Status::error("key sharding needs every worker's name");
  if (read.size() != plans.size()) return Status::error("one plan per file read");
  std::vector<double> shift;
  for (size_t f : read) {
    if (f >= shift_s.size()) return Status::error("no shift for file " + std::to_string(f));
    shift.push_back(shift_s[f]);
  }
  L2Share share;
  L2ShareFigures& fig = share.figures;
  count_file_figures(plans, fig);
  // Owner of every operation, per file; this node keeps its own.
  std::vector<std::vector<int>> owners(plans.size());
  std::optional<KeyOwners> keys;
  if (o.shard == L2Shard::Key) keys.emplace(o);
  for (size_t f = 0; f < plans.size(); ++f)
    owners[f] = keys ? keys->of(plans[f]) : std::vector<int>(plans[f].ops.size(), o.node_index);
  // Before the operations move: who seeds each prepared object (l2_fleet_prepare.h). Under
  // none every node replays every lookup, and node 0 alone seeds.
  for (size_t f = 0; f < plans.size(); ++f) {
    const std::vector<int> none(plans[f].ops.size(), 0);
    auto mine =
        l2_prepare_claims(plans[f], read[f], shift[f], o.shard == L2Shard::None ? none : owners[f]);
    other_claims.insert(other_claims.end(), mine.begin(), mine.end());
  }
  share.plan.prepare = l2_seeded_by(std::move(other_claims), o.node_index);
  fig.prepare_objects = share.plan.prepare.size();
  fig.prepare_bytes = share.plan.prepare_bytes();
  const auto order = merge_order(plans, shift);
  std::vector<std::vector<uint32_t>> new_index(plans.size());
  for (size_t f = 0; f < plans.size(); ++f) new_index[f].assign(plans[f].ops.size(), kNowhere);
  uint32_t next = 0;
  for (const auto& [f, i] : order)
    if (owners[f][i] == o.node_index) new_index[f][i] = next++;
  L2Plan& out = share.plan;
  out.ops.reserve(next);
  // Each file's keys after the previous files': an op's key ids move by its file's offset.
  std::vector<uint32_t> key_offset;
  for (const L2Plan& p : plans) {
    key_offset.push_back(static_cast<uint32_t>(out.keys.size()));
    out.keys.insert(out.keys.end(), p.keys.begin(), p.keys.end());
  }
  std::set<std::pair<size_t, int64_t>> requests;
  for (const auto& [f, i] : order) {
    if (new_index[f][i] == kNowhere) continue;
    L2PlanOp op = plans[f].ops[i];
    std::vector<uint32_t> deps;
    for (uint32_t d : plans[f].deps(op)) {
      const std::string kind = edge_kind(op, plans[f].ops[d]);
      if (new_index[f][d] == kNowhere) {
        ++fig.cut_edges[kind];
      } else {
        deps.push_back(new_index[f][d]);
        ++fig.kept_edges[kind];
      }
    }
    op.t_mono += shift[f];
    if (op.request_id >= 0) requests.emplace(f, op.request_id);
    out.adopt(plans[f], op, key_offset[f], deps);
  }
  fig.operations_kept = out.ops.size();
  fig.requests_kept = requests.size();
  if (!out.ops.empty()) fig.trace_window_s = out.ops.back().t_mono - out.ops.front().t_mono;
  for (const std::string& p : fig.files) out.path += (out.path.empty() ? "" : ",") + p;
  if (!plans.empty()) {
    out.header = plans.front().header;
    out.trace_percent = plans.front().trace_percent;
  }
  for (uint64_t n : fig.source_operations) out.source_operations_total += n;
  out.edge_counts = fig.kept_edges;
  out.forward_edges = fig.forward_edges;
  out.overlapping_store_hits = fig.overlapping_store_hits;
  return share;
}

}  // namespace fleet::l2replay
