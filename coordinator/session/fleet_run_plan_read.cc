// FleetRun when the workers route themselves and --route-cache names a plan directory
// (docs/sharding.md, "Workers that read a saved plan"). With a saved plan for this run's key
// (found in Prepare; key, layout, checksum and metadata checked), START names the plan's file
// and key: each worker checks the path against its --trace-root, checks the plan as the
// coordinator did and each entry as it reads it, and replays the frames the plan gives it,
// without scanning the trace. Without one, the workers scan and route
// live, and the coordinator routes the trace once after the replay to save the plan (a worker
// may not write files, and routing during the replay would take the workers' cores).
#include <spdlog/spdlog.h>

#include "fleet_run_machine.h"

namespace fleet::session {

void FleetRun::offer_saved_plan() {
  if (!saved_routes_) return;  // none saved yet (or it did not check out): live, then saved
  plan_read_ = true;
  route_plan_.replayed = true;
  route_plan_.file = saved_routes_->path();
  spdlog::info("route plan: each worker reads its share from {} ({} routes)", saved_routes_->path(),
               saved_routes_->entries());
}

void FleetRun::settle_plan_read(std::vector<wire::NodeResult>& nodes, report::RunReport& rep) {
  const nlohmann::json& meta = saved_routes_->meta();
  Result<SelfRoutedPlan> saved = plan_from_saved(meta);
  const bool from_meta = saved.ok();
  if (!from_meta) {  // its metadata lacks the rows: the coordinator routes for the plan
    spdlog::warn("{}: {}; routing the trace here for the plan", saved_routes_->path(),
                 saved.status().message());
    plan::RouterOptions options = o_.router;
    options.encode_split_parts = false;
    saved = plan_by_routing(o_.replay.trace_path, o_.replay.max_frame_bytes, options);
  }
  self_plan_ = std::move(saved).value();
  self_kept_.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const uint64_t share = i < self_plan_->rows.size() ? self_plan_->rows[i].records : 0;
    // A lost worker's share counts as lost with it, as when it routes itself.
    self_kept_[i] = share;
    if (nodes[i].status != wire::NodeStatus::Lost) {
      Result<PlanReadReport> r = plan_read_report(nodes[i].self_route);
      if (!r) {
        spdlog::warn("worker {}: {}", nodes[i].name, r.status().message());
      } else {
        self_kept_[i] = r->kept;
        if (r->complete && r->kept != share && self_plan_error_.empty()) {
          self_plan_error_ = "worker " + nodes[i].name + " replayed " + std::to_string(r->kept) +
                             " records from " + saved_routes_->path() + ", which gives it " +
                             std::to_string(share);
        }
      }
    }
    nodes[i].records_received = self_kept_[i];
  }
  rep.trace.malformed_skipped = self_plan_->malformed_skipped;
  rep.trace.truncated_tail = self_plan_->truncated_tail;
  // As a coordinator replaying the plan reports it.
  rep.plan = from_meta ? nlohmann::json(meta["plan"])
                       : nlohmann::json(plan::plan_json(self_plan_->totals, o_.router.worker_names,
                                                        self_plan_->rows));
}

void FleetRun::save_self_routed_plan() {
  if (!route_key_ || saved_routes_ || aborted_) return;
  if (self_plan_->malformed_skipped > 0 || self_plan_->truncated_tail) {
    route_plan_not_saved(spdlog::level::info, "the trace has malformed or truncated frames");
    return;
  }
  auto writer = plan::RoutePlanWriter::create(o_.route_cache_dir, *route_key_);
  if (!writer) {  // the directory is not writable
    route_plan_not_saved(spdlog::level::warn, writer.status().message());
    return;
  }
  spdlog::info("route plan: routing the trace once here to save it (the workers routed live)");
  plan::RouterOptions options = o_.router;
  options.encode_split_parts = false;  // as the workers route: a part is a masked reference
  const SelfRoutedPlan routed =
      plan_by_routing(o_.replay.trace_path, o_.replay.max_frame_bytes, options, writer->get());
  std::string why = routed.remainder_error;
  if (why.empty() && (routed.totals.records != self_plan_->totals.records ||
                      routed.totals.split_calls != self_plan_->totals.split_calls ||
                      routed.trace_records != self_plan_->trace_records)) {
    why = "the coordinator's routing of the trace differs from the workers' scans";
  }
  if (why.empty() && (routed.malformed_skipped > 0 || routed.truncated_tail))
    why = "the trace has malformed or truncated frames";
  if (!why.empty()) {
    route_plan_not_saved(spdlog::level::warn, why);
    return;
  }
  nlohmann::json meta;
  meta["t_origin"] = t_origin_;
  meta["records_read"] = routed.trace_records;
  meta["plan"] = plan::plan_json(routed.totals, o_.router.worker_names, routed.rows);
  Result<std::string> saved = Status::error("not committed");
  try {
    saved = writer.value()->commit(meta);
  } catch (const std::exception& e) {  // e.g. the metadata would not serialise: save nothing
    saved = Status::error(e.what());
  }
  if (!saved) {
    route_plan_not_saved(spdlog::level::warn, saved.status().message());
    return;
  }
  spdlog::info("route plan: saved {}", saved.value());
  route_plan_.saved = true;
  route_plan_.file = saved.value();
}

}  // namespace fleet::session
