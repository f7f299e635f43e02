// FleetRun with --route-cache (plan/route_cache.h, docs/sharding.md "Saved routing plans"): a
// run either replays a saved plan, streaming its references instead of reading and routing the
// trace, or saves the routes it sends so that the next run of the same trace can.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "fleet/coordinator/session/batch_fanout.h"
#include "fleet/util/clock.h"
#include "fleet_run_machine.h"

namespace fleet::session {

namespace {

// Why this run's routes cannot be saved or replayed: a plan holds references only, so every
// worker must read the trace itself.
std::string why_not_shared(const LinkSet& links) {
  for (const auto& l : links) {
    if (!l->shared_trace())
      return "worker " + l->address().name() + " gets records inline, not by reference";
  }
  return "";
}

}  // namespace

// Prepare: the key, and a plan checked whole, before any worker is connected (a worker that
// hears nothing for 1.5 s after its handshake gives the run up, and checking a plan of a
// hundred million records takes longer than that).
void FleetRun::find_saved_routes() {
  plan::RouterOptions options = o_.router;
  options.encode_split_parts = false;  // a plan is used only with links that read the trace
  auto key = plan::route_plan_key(o_.replay.trace_path, reader_->header().sm_config_digest, options,
                                  o_.replay.max_frame_bytes);
  if (!key) {  // the trace cannot be stat'ed
    route_plan_not_used(key.status().message());
    return;
  }
  route_key_ = std::move(key).value();
  plan::RoutePlanReader::Limits limits;
  limits.trace_size = reader_->file_size();
  limits.workers = static_cast<int>(o_.router.worker_names.size());
  limits.max_frame_bytes = o_.replay.max_frame_bytes;
  // Workers that read the plan themselves check each entry as they read it, and a bad one
  // stops the run before anything wrong is replayed: the coordinator checks the key, layout,
  // checksum and metadata only (a walk of every entry is ~40 % of the check's CPU). A plan it
  // streams itself is walked whole first: what it has sent cannot be taken back.
  limits.walk_entries = !self_routing_asked();
  auto saved = plan::RoutePlanReader::open(o_.route_cache_dir, *route_key_, limits);
  if (!saved) {
    route_plan_not_used("routing the trace again: " + saved.status().message());
    return;
  }
  saved_routes_ = std::move(saved).value();
  if (!saved_routes_) return;  // none saved yet: this run routes and saves one
  const nlohmann::json& m = saved_routes_->meta();
  if (!m.contains("t_origin") || !m["t_origin"].is_number() || !m.contains("records_read") ||
      !m["records_read"].is_number_unsigned() || !m.contains("plan") || !m["plan"].is_object()) {
    route_plan_not_used("routing the trace again: " + saved_routes_->path() +
                        ": metadata incomplete");
    saved_routes_.reset();
  }
}

// Start: replay the plan found in Prepare if every worker reads the trace itself; otherwise
// route live, saving the routes when they can be saved.
bool FleetRun::open_saved_routes() {
  if (!route_key_) return false;
  if (const std::string why = why_not_shared(links_); !why.empty()) {
    spdlog::info("route plan: not used: {}", why);
    route_plan_.why_not = why;
    saved_routes_.reset();
    return false;
  }
  if (!saved_routes_) {
    auto writer = plan::RoutePlanWriter::create(o_.route_cache_dir, *route_key_);
    if (writer) {
      routes_writer_ = std::move(writer).value();
    } else {  // the directory is not writable
      route_plan_not_saved(spdlog::level::warn, writer.status().message());
    }
    return false;
  }
  saved_tally_.rows.assign(links_.size(), 0);
  saved_tally_.split_parts.assign(links_.size(), 0);
  saved_cursor_ = std::make_unique<plan::RoutePlanReader::Cursor>(saved_routes_->cursor());
  try {
    have_record_ = saved_cursor_->next(saved_route_);
  } catch (const std::exception& e) {  // changed since it was checked: nothing sent yet
    route_plan_not_used(e.what());
    saved_cursor_.reset();
    saved_routes_.reset();
    return false;
  }
  spdlog::info("route plan: replaying {} ({} routes); the trace is read by the workers only",
               saved_routes_->path(), saved_routes_->entries());
  route_plan_.replayed = true;
  route_plan_.file = saved_routes_->path();
  return true;
}

// As route_one does, in trace order and a whole record at a time (a stop never falls between
// the parts of a split call): one cursor over the plan, so memory and plan reads stay one pass
// whatever the number of workers. (A cursor per worker, each waiting only for its own credit,
// measured no faster on the benchmark and reads the plan once per worker.)
bool FleetRun::replay_saved_one() {
  do {
    send_saved(saved_route_);
    if (!advance_saved()) return false;
  } while (have_record_ && !(saved_route_.flags & plan::kRouteFirstOfRecord));
  feed_->wait_for_room();
  return true;
}

void FleetRun::send_saved(const plan::SavedRoute& r) {
  const bool split = (r.flags & plan::kRouteSplitPart) != 0;
  if (r.flags & plan::kRouteFirstOfRecord) {
    ++saved_tally_.records;
    saved_tally_.split_calls += split;
  }
  if (r.flags & plan::kRouteAllWorkers) {
    for (auto& n : saved_tally_.rows) ++n;
    if (fanout_) {
      fanout_->add_reference(r.file_offset, r.body_size);
    } else {
      for (BatchPacker& p : packers_)
        if (!p.closed()) p.add_reference(r.file_offset, r.body_size, r.t_shift);
    }
  } else {
    ++saved_tally_.rows[r.worker];
    saved_tally_.split_parts[r.worker] += split;
    BatchPacker& link = packers_[r.worker];
    if (!link.closed())
      link.add_reference(r.file_offset, r.body_size, r.t_shift, r.key_mask, r.mask_keys);
  }
}

bool FleetRun::advance_saved() {
  try {
    have_record_ = saved_cursor_->next(saved_route_);
    return true;
  } catch (const std::exception& e) {  // the plan changed under the run: stop every worker
    route_plan_.why_not = e.what();
    routing_failed(e.what(), "route plan read error");
    have_record_ = false;
    return false;
  }
}

void FleetRun::save_routes() {
  if (!routes_writer_) return;
  std::unique_ptr<plan::RoutePlanWriter> writer = std::move(routes_writer_);
  const auto& c = reader_->counters();
  std::string why = writer->why_abandoned();
  if (why.empty() && (aborted_ || have_record_))
    why = "the run stopped before the end of the trace";
  if (why.empty() && (c.malformed_skipped > 0 || c.truncated_tail))
    why = "the trace has malformed or truncated frames";
  if (!why.empty()) {
    route_plan_not_saved(spdlog::level::info, why);
    return;
  }
  nlohmann::json meta;
  meta["t_origin"] = t_origin_;
  meta["records_read"] = c.records;
  meta["plan"] = router_->plan_json();
  Result<std::string> saved = Status::error("not committed");
  try {
    saved = writer->commit(meta);
  } catch (const std::exception& e) {  // e.g. the metadata would not serialise: save nothing
    saved = Status::error(e.what());
  }
  if (!saved) {
    route_plan_not_saved(spdlog::level::warn, saved.status().message());
  } else {
    spdlog::info("route plan: saved {}", saved.value());
    route_plan_.saved = true;
    route_plan_.file = saved.value();
  }
}

void FleetRun::route_plan_not_used(const std::string& why) {
  spdlog::warn("route plan: not used: {}", why);
  route_plan_.why_not = why;
}

void FleetRun::route_plan_not_saved(spdlog::level::level_enum level, const std::string& why) {
  spdlog::log(level, "route plan: not saved: {}", why);
  route_plan_.why_not = "not saved: " + why;
}

nlohmann::ordered_json FleetRun::route_plan_json() const {
  nlohmann::ordered_json j;
  j["replayed"] = route_plan_.replayed;
  j["saved"] = route_plan_.saved;
  j["file"] = route_plan_.file.empty() ? nlohmann::ordered_json(nullptr)
                                       : nlohmann::ordered_json(route_plan_.file);
  j["why_not"] = route_plan_.why_not;
  return j;
}

double FleetRun::read_fraction() const {
  if (self_routing_) {  // the workers read the trace: the slowest scan, as they report it
    double least = 2.0;
    for (const auto& l : links_) {
      const double f = l->live().read_fraction.load(std::memory_order_relaxed);
      if (f >= 0.0) least = std::min(least, f);
    }
    return least > 1.0 ? -1.0 : least;
  }
  if (saved_routes_) {
    return saved_routes_->entries()
               ? static_cast<double>(saved_routes_->entries_read()) / saved_routes_->entries()
               : 1.0;
  }
  return reader_->file_size()
             ? static_cast<double>(reader_->counters().bytes_consumed) / reader_->file_size()
             : -1.0;
}

}  // namespace fleet::session
