#include "fleet/l2replay/l2_fleet_prepare.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "fleet/util/json_number.h"

namespace fleet::l2replay {

std::vector<L2PrepareClaim> l2_prepare_claims(const L2Plan& plan, size_t file, double shift,
                                              const std::vector<int>& node_of_op) {
  std::vector<L2PrepareClaim> out;
  out.reserve(plan.prepare.size());
  for (const L2PreparedObject& p : plan.prepare)
    out.push_back({p, plan.ops[p.needed_by].t_mono + shift, file, node_of_op[p.needed_by]});
  return out;
}

std::vector<L2PreparedObject> l2_seeded_by(std::vector<L2PrepareClaim> claims, int node) {
  std::stable_sort(claims.begin(), claims.end(), [](const auto& a, const auto& b) {
    return std::tie(a.t, a.file) < std::tie(b.t, b.file);
  });
  std::unordered_map<trace::ObjectKey, bool, trace::ObjectKeyHash> claimed;
  claimed.reserve(claims.size());
  std::vector<L2PreparedObject> out;
  for (const L2PrepareClaim& c : claims) {
    if (!claimed.emplace(c.object.key, true).second) continue;  // an earlier claim seeds it
    if (c.node == node) out.push_back(c.object);
  }
  return out;
}

nlohmann::json l2_prepare_json(const L2PrepareResult& r) {
  return {{"prepared_objects", r.prepared_objects},
          {"prepared_bytes", r.prepared_bytes},
          {"store_tasks_succeeded", r.store_tasks_succeeded},
          {"store_tasks_failed", r.store_tasks_failed},
          {"elapsed_seconds", r.elapsed_seconds}};
}

L2PrepareResult l2_prepare_from(const nlohmann::json& j) {
  L2PrepareResult r;
  r.prepared_objects = util::json_integer<uint64_t>(j.at("prepared_objects"), "prepared_objects");
  r.prepared_bytes = util::json_integer<uint64_t>(j.at("prepared_bytes"), "prepared_bytes");
  r.store_tasks_succeeded =
      util::json_integer<uint64_t>(j.at("store_tasks_succeeded"), "store_tasks_succeeded");
  r.store_tasks_failed =
      util::json_integer<uint64_t>(j.at("store_tasks_failed"), "store_tasks_failed");
  r.elapsed_seconds = util::json_real(j.at("elapsed_seconds"), "elapsed_seconds");
  return r;
}

L2PrepareResult merge_l2_prepares(const std::vector<const L2PrepareResult*>& parts) {
  L2PrepareResult m;
  for (const L2PrepareResult* p : parts) {
    m.prepared_objects += p->prepared_objects;
    m.prepared_bytes += p->prepared_bytes;
    m.store_tasks_succeeded += p->store_tasks_succeeded;
    m.store_tasks_failed += p->store_tasks_failed;
    m.elapsed_seconds = std::max(m.elapsed_seconds, p->elapsed_seconds);
  }
  return m;
}

}  // namespace fleet::l2replay
