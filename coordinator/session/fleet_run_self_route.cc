// FleetRun when the workers route themselves (docs/sharding.md, "Workers that route
// themselves"): START carries the plan's parameters, each worker reads the trace and replays
// its own share, and the coordinator carries control only. The plan and the accounting come
// from the workers' DONEs (self_routed_plan.h).
#include <spdlog/spdlog.h>

#include <filesystem>
#include <thread>

#include "fleet_run_machine.h"

namespace fleet::session {

bool FleetRun::self_routing_asked() const {
  return o_.routing == Routing::Workers ||
         (o_.routing == Routing::Auto && o_.trace_access == TraceAccess::Shared);
}

Status FleetRun::decide_routing() {
  if (!self_routing_asked()) return Status();
  for (const auto& l : links_) {
    if (!l->shared_trace()) {
      return Status::error("worker " + l->address().name() +
                           " does not read the trace itself, and --routing workers needs "
                           "every worker to (--trace-access shared, or workers on this host)");
    }
  }
  self_routing_ = true;
  spdlog::info("routing: each of the {} workers reads the trace and routes its own share",
               links_.size());
  return Status();
}

wire::SelfRouting FleetRun::self_routing_params() const {
  wire::SelfRouting s;
  s.on = self_routing_;
  if (!s.on) return s;
  s.shard = plan::shard_mode_name(o_.router.mode);
  s.timeline = plan::timeline_name(o_.router.timeline);
  s.window_s = o_.router.window_s;
  s.lifecycle_ttl_s = o_.router.lifecycle_ttl_s;
  if (o_.router.mode == plan::ShardMode::Key) s.worker_names = o_.router.worker_names;
  s.max_frame_bytes = o_.replay.max_frame_bytes;
  // As the coordinator's own reader decides (prepare()): --local workers on a small host leave
  // no core for a read-ahead thread.
  s.read_ahead = o_.local == 0 || std::thread::hardware_concurrency() > unsigned(o_.local) + 1;
  if (plan_read_) {  // the workers read their shares from the saved plan instead
    s.plan_path = std::filesystem::absolute(saved_routes_->path()).lexically_normal().string();
    s.plan_key = route_key_->text;
  }
  return s;
}

void FleetRun::settle_self_routed_plan(std::vector<wire::NodeResult>& nodes,
                                       report::RunReport& rep) {
  if (plan_read_) return settle_plan_read(nodes, rep);
  plan::RouterOptions options = o_.router;
  options.encode_split_parts = false;  // as the workers route: a part's bytes are the record's
  std::vector<std::optional<SelfRouteScan>> scans;
  self_kept_.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].status == wire::NodeStatus::Lost) {
      scans.emplace_back();
      continue;
    }
    Result<SelfRouteScan> s = self_route_scan(nodes[i].self_route);
    if (!s) {
      spdlog::warn("worker {}: {}", nodes[i].name, s.status().message());
      scans.emplace_back();
      continue;
    }
    self_kept_[i] = s->kept;
    scans.emplace_back(std::move(s).value());
  }
  Result<SelfRoutedPlan> agreed = plan_from_scans(scans, o_.router.worker_names, options);
  const bool cut_short = aborted_ || std::any_of(scans.begin(), scans.end(),
                                                 [](const auto& s) { return !s || !s->complete; });
  if (!agreed && !cut_short) self_plan_error_ = agreed.status().message();
  if (agreed) {
    self_plan_ = std::move(agreed).value();
    save_self_routed_plan();
  } else {  // a worker stopped before the end: the coordinator routes the trace for the plan
    spdlog::info("routing the trace here for the plan and the accounting: {}",
                 agreed.status().message());
    self_plan_ = plan_by_routing(o_.replay.trace_path, o_.replay.max_frame_bytes, options);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    // A lost worker's share counts as lost with it: it routed it for itself.
    if (!scans[i] && i < self_plan_->rows.size()) self_kept_[i] = self_plan_->rows[i].records;
    nodes[i].records_received = self_kept_[i];
  }
  rep.trace.malformed_skipped = self_plan_->malformed_skipped;
  rep.trace.truncated_tail = self_plan_->truncated_tail;
  rep.plan = plan::plan_json(self_plan_->totals, o_.router.worker_names, self_plan_->rows);
}

void FleetRun::self_routed_accounting(report::AccountingInput& in, std::vector<uint64_t>& routed,
                                      std::vector<uint64_t>& parts, uint64_t& split_calls) const {
  in.records_routed = self_plan_->totals.records;
  in.trace_records = self_plan_->trace_records;
  in.remainder_error = self_plan_->remainder_error;
  for (const plan::PlanRow& row : self_plan_->rows) {
    routed.push_back(row.records);
    parts.push_back(row.split_parts);
  }
  split_calls = self_plan_->totals.split_calls;
}

}  // namespace fleet::session
