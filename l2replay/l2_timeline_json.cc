#include "fleet/l2replay/l2_timeline_json.h"

#include "fleet/stats/latency_cdf_points.h"
#include "fleet/util/json_pair.h"
#include "fleet/util/sha256.h"

namespace fleet::l2replay {

namespace {

using Json = nlohmann::json;

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

Json kind_columns(const std::vector<L2Window>& windows, size_t k) {
  Json::array_t dispatched, completed, failed, bytes, p50, p99, max, lag;
  for (const L2Window& w : windows) {
    const L2WindowOp& o = w.ops[k];
    dispatched.emplace_back(o.dispatched);
    completed.emplace_back(o.completed);
    failed.emplace_back(o.failed);
    bytes.emplace_back(o.bytes_moved);
    p50.emplace_back(us(o.latency_p50_ns));
    p99.emplace_back(us(o.latency_p99_ns));
    max.emplace_back(us(o.latency_max_ns));
    lag.emplace_back(static_cast<double>(o.schedule_lag_max_ns) / 1e9);
  }
  return {{"dispatched", std::move(dispatched)}, {"completed", std::move(completed)},
          {"failed", std::move(failed)},         {"bytes_moved", std::move(bytes)},
          {"latency_p50_us", std::move(p50)},    {"latency_p99_us", std::move(p99)},
          {"latency_max_us", std::move(max)},    {"schedule_lag_max_s", std::move(lag)}};
}

}  // namespace

Json l2_timeline_json(const L2ReplayResult& r) {
  Json::array_t index;
  for (const L2Window& w : r.timeline) index.emplace_back(w.index);
  Json by_op = Json::object();
  for (size_t k = 0; k < kL2OpCount; ++k) {
    if (r.ops[k].submitted == 0) continue;
    by_op[std::string(trace::l2_op_name(static_cast<L2Op>(k)))] = kind_columns(r.timeline, k);
  }
  return {{"window_seconds", 1}, {"index", std::move(index)}, {"by_operation", std::move(by_op)}};
}

Json l2_latency_cdf_json(const L2OpResult& op) {
  Json::array_t points;
  for (const auto& [ms, f] : stats::latency_cdf_points(op.latency))
    points.emplace_back(util::json_pair<Json>(ms, f));
  return points;
}

std::string plan_sha256(const L2Plan& plan) {
  std::string bytes;
  bytes.reserve(plan.ops.size() * 24 + plan.prepare.size() * 64);
  auto put = [&bytes](auto v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto put_text = [&](std::string_view s) {
    put(static_cast<uint64_t>(s.size()));
    bytes.append(s);
  };
  for (const L2PlanOp& op : plan.ops) {
    put(static_cast<uint8_t>(op.op));
    put(op.sequence);
    put(op.deps.n);
    for (uint32_t d : plan.deps(op)) put(d);
  }
  for (const L2PreparedObject& p : plan.prepare) {
    put_text(p.key.chunk_hash.view());
    put_text(p.key.model_name.str());
    put(p.key.kv_rank);
    put(p.key.object_group_id);
    put_text(p.key.cache_salt.str());
    put(p.size);
  }
  return util::sha256_hex(bytes);
}

void add_report_fields(Json& fleet, const L2Plan& plan, const L2ReplayResult& r) {
  fleet["trace"] = plan.path;
  fleet["timeline"] = l2_timeline_json(r);
  for (size_t k = 0; k < kL2OpCount; ++k) {
    const std::string name(trace::l2_op_name(static_cast<L2Op>(k)));
    fleet["by_operation"][name]["latency_cdf_ms"] = l2_latency_cdf_json(r.ops[k]);
  }
  // A fleet run's merged stats have no plan of their own (its figures, no operations): no digest.
  if (!plan.ops.empty())
    fleet["plan"]["plan_sha256"] = r.plan_sha256.empty() ? plan_sha256(plan) : r.plan_sha256;
}

}  // namespace fleet::l2replay
