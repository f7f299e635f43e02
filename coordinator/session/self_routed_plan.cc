#include "self_routed_plan.h"

#include "fleet/plan/route_record.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/json_number.h"

namespace fleet::session {

namespace {

// The numbers every complete scan must share, as one line for an error.
std::string trace_wide(const SelfRouteScan& s) {
  return std::to_string(s.records_read) + " records read, " + std::to_string(s.malformed_skipped) +
         " malformed, " + std::to_string(s.records_routed) + " routed, " +
         std::to_string(s.split_calls) + " split calls" +
         (s.truncated_tail ? ", truncated tail" : "");
}

bool same_trace(const SelfRouteScan& a, const SelfRouteScan& b) {
  return a.records_read == b.records_read && a.malformed_skipped == b.malformed_skipped &&
         a.truncated_tail == b.truncated_tail && a.records_routed == b.records_routed &&
         a.split_calls == b.split_calls && a.t_first == b.t_first && a.t_last == b.t_last;
}

}  // namespace

Result<SelfRouteScan> self_route_scan(const nlohmann::json& j) {
  if (!j.is_object()) return Status::error("no self_route report in its DONE");
  try {
    SelfRouteScan s;
    s.complete = j.at("complete").get<bool>();
    s.records_read = util::json_integer<uint64_t>(j.at("records_read"), "records_read");
    s.malformed_skipped =
        util::json_integer<uint64_t>(j.at("malformed_skipped"), "malformed_skipped");
    s.truncated_tail = j.at("truncated_tail").get<bool>();
    s.records_routed = util::json_integer<uint64_t>(j.at("records_routed"), "records_routed");
    s.split_calls = util::json_integer<uint64_t>(j.at("split_calls"), "split_calls");
    s.t_first = j.at("t_first").get<double>();
    s.t_last = j.at("t_last").get<double>();
    s.kept = util::json_integer<uint64_t>(j.at("kept"), "kept");
    Result<plan::PlanRow> row = plan::plan_row_from_json(j.at("row"));
    if (!row) return row.status();
    s.row = row.value();
    return s;
  } catch (const std::exception& e) {  // a field missing or of the wrong type
    return Status::error(std::string("self_route report: ") + e.what());
  }
}

Result<SelfRoutedPlan> plan_from_scans(const std::vector<std::optional<SelfRouteScan>>& scans,
                                       const std::vector<std::string>& names,
                                       const plan::RouterOptions& options) {
  SelfRoutedPlan p;
  const SelfRouteScan* first = nullptr;
  size_t first_at = 0;
  for (size_t i = 0; i < scans.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : std::to_string(i);
    if (!scans[i] || !scans[i]->complete)
      return Status::error("worker " + name + " did not scan the whole trace");
    const SelfRouteScan& s = *scans[i];
    if (first && !same_trace(*first, s)) {
      return Status::error("worker " + name + " routed a different trace than worker " +
                           names[first_at] + ": " + trace_wide(s) + " against " +
                           trace_wide(*first));
    }
    if (!first) {
      first = &s;
      first_at = i;
    }
    p.rows.push_back(s.row);
  }
  if (!first) return Status::error("no worker reported a scan");
  p.totals = {options.mode,       options.timeline, options.window_s, first->records_routed,
              first->split_calls, first->t_first,   first->t_last};
  p.trace_records = first->records_read;
  p.malformed_skipped = first->malformed_skipped;
  p.truncated_tail = first->truncated_tail;
  return p;
}

SelfRoutedPlan plan_by_routing(const std::string& trace_path, uint32_t max_frame_bytes,
                               const plan::RouterOptions& options, plan::RoutePlanWriter* save_to) {
  SelfRoutedPlan p;
  p.routed_here = true;
  plan::ShardRouter router(options);
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame_bytes;
  ro.defer_args_check = true;
  try {
    trace::FrameReader reader(trace_path, ro);
    trace::RecordView rec;
    try {
      const bool all = options.mode == plan::ShardMode::None;
      while (reader.next(rec)) {
        const std::vector<plan::Route>& routes = plan::route_or_reject(router, reader, rec);
        if (save_to) save_to->add_record(routes, rec.file_offset, all);
      }
    } catch (const std::exception& e) {  // the file fails mid-read: what was routed stands
      p.remainder_error = e.what();
    }
    p.trace_records = reader.counters().records;
    p.malformed_skipped = reader.counters().malformed_skipped;
    p.truncated_tail = reader.counters().truncated_tail;
  } catch (const std::exception& e) {  // the trace cannot be opened any more
    p.remainder_error = e.what();
  }
  p.totals = router.totals();
  p.rows = router.rows();
  return p;
}

Result<PlanReadReport> plan_read_report(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("from_plan"))
    return Status::error("no report of a plan read in its DONE");
  try {
    PlanReadReport r;
    r.complete = j.at("complete").get<bool>();
    r.kept = util::json_integer<uint64_t>(j.at("kept"), "kept");
    r.problem = j.at("problem").get<std::string>();
    return r;
  } catch (const std::exception& e) {  // a field missing or of the wrong type
    return Status::error(std::string("self_route report: ") + e.what());
  }
}

Result<SelfRoutedPlan> plan_from_saved(const nlohmann::json& meta) {
  try {
    const nlohmann::json& plan = meta.at("plan");
    SelfRoutedPlan p;
    p.totals.records = util::json_integer<uint64_t>(plan.at("records"), "records");
    p.totals.split_calls = util::json_integer<uint64_t>(plan.at("split_calls"), "split_calls");
    for (const nlohmann::json& w : plan.at("workers")) {
      Result<plan::PlanRow> row = plan::plan_row_from_json(w);
      if (!row) return row.status();
      p.rows.push_back(row.value());
    }
    p.trace_records = util::json_integer<uint64_t>(meta.at("records_read"), "records_read");
    return p;  // a plan is saved only from a trace with no malformed or truncated frame
  } catch (const std::exception& e) {
    return Status::error(std::string("saved plan metadata: ") + e.what());
  }
}

}  // namespace fleet::session
