#include "fleet/l2replay/l2_fleet_result.h"

#include <algorithm>

#include "fleet/l2replay/l2_fleet_prepare.h"
#include "fleet/l2replay/l2_timeline_merge.h"
#include "fleet/util/json_number.h"

namespace fleet::l2replay {

namespace {

using Json = nlohmann::json;

Json waits_json(const WaitTotals& w) { return {{"max_s", w.max_s}, {"total_s", w.total_s}}; }
WaitTotals waits_from(const Json& j) {
  return {util::json_real(j.at("max_s"), "max_s"), j.at("total_s")};
}

void merge_waits(WaitTotals& into, const WaitTotals& w) {
  into.max_s = std::max(into.max_s, w.max_s);
  into.total_s += w.total_s;
}

Json op_json(const L2OpResult& o) {
  return {{"submitted", o.submitted},
          {"completed", o.completed},
          {"failed", o.failed},
          {"bytes_submitted", o.bytes_submitted},
          {"bytes_moved", o.bytes_moved},
          {"schedule_lag", waits_json(o.schedule_lag)},
          {"dependency_wait", waits_json(o.dependency_wait)},
          {"loop_wait", waits_json(o.loop_wait)},
          {"outcome_comparisons", o.outcome_comparisons},
          {"outcome_mismatches", o.outcome_mismatches}};
}

void op_from(const Json& j, L2OpResult& o) {
  o.submitted = util::json_integer<uint64_t>(j.at("submitted"), "submitted");
  o.completed = util::json_integer<uint64_t>(j.at("completed"), "completed");
  o.failed = util::json_integer<uint64_t>(j.at("failed"), "failed");
  o.bytes_submitted = util::json_integer<uint64_t>(j.at("bytes_submitted"), "bytes_submitted");
  o.bytes_moved = util::json_integer<uint64_t>(j.at("bytes_moved"), "bytes_moved");
  o.schedule_lag = waits_from(j.at("schedule_lag"));
  o.dependency_wait = waits_from(j.at("dependency_wait"));
  o.loop_wait = waits_from(j.at("loop_wait"));
  o.outcome_comparisons =
      util::json_integer<uint64_t>(j.at("outcome_comparisons"), "outcome_comparisons");
  o.outcome_mismatches =
      util::json_integer<uint64_t>(j.at("outcome_mismatches"), "outcome_mismatches");
}

Json share_json(const L2ShareFigures& s) {
  return {{"files", s.files},
          {"source_operations", s.source_operations},
          {"operations_in_files", s.operations_in_files},
          {"operations_kept", s.operations_kept},
          {"kept_edges", s.kept_edges},
          {"cut_edges", s.cut_edges},
          {"requests_kept", s.requests_kept},
          {"forward_edges", s.forward_edges},
          {"overlapping_store_hits", s.overlapping_store_hits},
          {"trace_window_s", s.trace_window_s},
          {"prepare_objects", s.prepare_objects},
          {"prepare_bytes", s.prepare_bytes}};
}

L2ShareFigures share_from(const Json& j) {
  L2ShareFigures s;
  s.files = j.at("files").get<std::vector<std::string>>();
  s.source_operations = j.at("source_operations").get<std::vector<uint64_t>>();
  s.operations_in_files =
      util::json_integer<uint64_t>(j.at("operations_in_files"), "operations_in_files");
  s.operations_kept = util::json_integer<uint64_t>(j.at("operations_kept"), "operations_kept");
  s.kept_edges = j.at("kept_edges").get<std::map<std::string, uint64_t>>();
  s.cut_edges = j.at("cut_edges").get<std::map<std::string, uint64_t>>();
  s.requests_kept = util::json_integer<uint64_t>(j.at("requests_kept"), "requests_kept");
  s.forward_edges = util::json_integer<uint64_t>(j.at("forward_edges"), "forward_edges");
  s.overlapping_store_hits =
      util::json_integer<uint64_t>(j.at("overlapping_store_hits"), "overlapping_store_hits");
  s.trace_window_s = util::json_real(j.at("trace_window_s"), "trace_window_s");
  s.prepare_objects = util::json_integer<uint64_t>(j.at("prepare_objects"), "prepare_objects");
  s.prepare_bytes = util::json_integer<uint64_t>(j.at("prepare_bytes"), "prepare_bytes");
  return s;
}

}  // namespace

std::string l2_latency_qualname(L2Op op) { return "l2." + std::string(trace::l2_op_name(op)); }

Json l2_result_json(const L2ReplayResult& r, const L2ShareFigures& share,
                    const std::optional<L2PrepareResult>& prepare) {
  Json ops = Json::array();
  for (const L2OpResult& o : r.ops) ops.push_back(op_json(o));
  return {{"adapter_name", r.adapter_name},
          {"prepare", prepare ? l2_prepare_json(*prepare) : Json(nullptr)},
          {"speed", r.speed},
          {"ops", ops},
          {"operations_total", r.operations_total},
          {"first_dispatch_s", r.first_dispatch_s},
          {"last_dispatch_s", r.last_dispatch_s},
          {"total_replay_seconds", r.total_replay_seconds},
          {"dependency_violations", r.dependency_violations},
          {"unmatched_completions", r.unmatched_completions},
          {"in_flight_at_end", r.in_flight_at_end},
          {"interrupted", r.interrupted},
          {"mismatch_samples", r.mismatch_samples},
          {"timeline", l2_timeline_wire(r.timeline)},
          {"share", share_json(share)}};
}

void put_l2_latencies(const L2ReplayResult& r, stats::StatsCollector& out) {
  for (size_t k = 0; k < kL2OpCount; ++k) {
    const L2OpResult& o = r.ops[k];
    if (o.latency.count() == 0 && o.latency.errors() == 0) continue;
    out.op(l2_latency_qualname(static_cast<L2Op>(k))).merge(o.latency);
  }
}

namespace {

L2NodeResult node_result_from(const Json& j, const stats::StatsCollector& stats) {
  L2NodeResult n;
  L2ReplayResult& r = n.result;
  r.adapter_name = j.at("adapter_name").get<std::string>();
  r.speed = util::json_real(j.at("speed"), "speed");
  const Json& ops = j.at("ops");
  for (size_t k = 0; k < kL2OpCount; ++k) op_from(ops.at(k), r.ops[k]);
  r.operations_total = util::json_integer<uint64_t>(j.at("operations_total"), "operations_total");
  r.first_dispatch_s = util::json_real(j.at("first_dispatch_s"), "first_dispatch_s");
  r.last_dispatch_s = util::json_real(j.at("last_dispatch_s"), "last_dispatch_s");
  r.total_replay_seconds = util::json_real(j.at("total_replay_seconds"), "total_replay_seconds");
  r.dependency_violations =
      util::json_integer<uint64_t>(j.at("dependency_violations"), "dependency_violations");
  r.unmatched_completions =
      util::json_integer<uint64_t>(j.at("unmatched_completions"), "unmatched_completions");
  r.in_flight_at_end = util::json_integer<uint64_t>(j.at("in_flight_at_end"), "in_flight_at_end");
  r.interrupted = j.at("interrupted").get<bool>();
  r.mismatch_samples = j.at("mismatch_samples").get<std::vector<std::string>>();
  for (size_t k = 0; k < kL2OpCount; ++k) {
    auto it = stats.ops().find(l2_latency_qualname(static_cast<L2Op>(k)));
    if (it != stats.ops().end()) r.ops[k].latency.merge(it->second);
  }
  n.share = share_from(j.at("share"));
  if (j.contains("prepare") && !j["prepare"].is_null()) n.prepare = l2_prepare_from(j["prepare"]);
  return n;
}

}  // namespace

Result<L2NodeResult> l2_node_result_from(const Json& j, const stats::StatsCollector& stats) {
  try {
    L2NodeResult n = node_result_from(j, stats);
    if (j.contains("timeline")) {
      Result<std::vector<L2Window>> t = l2_timeline_from_wire(j["timeline"]);
      if (!t) return Status::error("l2_replay: " + t.status().message());
      n.result.timeline = std::move(t).value();
    }
    if (j.at("ops").size() != kL2OpCount)
      return Status::error("l2_replay.ops: not " + std::to_string(kL2OpCount) + " entries");
    if (n.share.files.size() != n.share.source_operations.size())
      return Status::error("l2_replay.share: files and source_operations differ in length");
    return n;
  } catch (const std::exception& e) {  // a field missing or of another type (nlohmann)
    return Status::error(std::string("l2_replay: ") + e.what());
  }
}

L2ReplayResult merge_l2_results(const std::vector<const L2ReplayResult*>& parts) {
  L2ReplayResult m;
  bool first = true, dispatched = false;
  std::vector<const std::vector<L2Window>*> timelines;
  for (const L2ReplayResult* p : parts) {
    timelines.push_back(&p->timeline);
    if (first) {
      m.adapter_name = p->adapter_name;
      m.speed = p->speed;
    }
    for (size_t k = 0; k < kL2OpCount; ++k) {
      L2OpResult& into = m.ops[k];
      const L2OpResult& o = p->ops[k];
      into.submitted += o.submitted, into.completed += o.completed, into.failed += o.failed;
      into.bytes_submitted += o.bytes_submitted, into.bytes_moved += o.bytes_moved;
      into.latency.merge(o.latency);
      merge_waits(into.schedule_lag, o.schedule_lag);
      merge_waits(into.dependency_wait, o.dependency_wait);
      merge_waits(into.loop_wait, o.loop_wait);
      into.outcome_comparisons += o.outcome_comparisons;
      into.outcome_mismatches += o.outcome_mismatches;
    }
    m.operations_total += p->operations_total;
    if (p->dispatched() > 0) {
      m.first_dispatch_s =
          dispatched ? std::min(m.first_dispatch_s, p->first_dispatch_s) : p->first_dispatch_s;
      dispatched = true;
    }
    m.last_dispatch_s = std::max(m.last_dispatch_s, p->last_dispatch_s);
    m.total_replay_seconds = std::max(m.total_replay_seconds, p->total_replay_seconds);
    m.dependency_violations += p->dependency_violations;
    m.unmatched_completions += p->unmatched_completions;
    m.in_flight_at_end += p->in_flight_at_end;
    m.interrupted |= p->interrupted;
    for (const std::string& s : p->mismatch_samples)
      if (m.mismatch_samples.size() < 10) m.mismatch_samples.push_back(s);
    first = false;
  }
  m.timeline = merge_l2_timelines(timelines);
  return m;
}

L2ShareFigures merge_l2_share_figures(const std::vector<const L2ShareFigures*>& parts) {
  L2ShareFigures m;
  for (const L2ShareFigures* p : parts) {
    // The files' own figures count once: every node reads every file (none, key), or each
    // file is read by one node (source).
    bool seen = false;
    for (size_t f = 0; f < p->files.size(); ++f) {
      if (std::find(m.files.begin(), m.files.end(), p->files[f]) != m.files.end()) {
        seen = true;
        continue;
      }
      m.files.push_back(p->files[f]);
      m.source_operations.push_back(p->source_operations[f]);
    }
    if (!seen) {
      m.operations_in_files += p->operations_in_files;
      m.forward_edges += p->forward_edges;
      m.overlapping_store_hits += p->overlapping_store_hits;
    }
    m.operations_kept += p->operations_kept;
    for (const auto& [k, n] : p->kept_edges) m.kept_edges[k] += n;
    for (const auto& [k, n] : p->cut_edges) m.cut_edges[k] += n;
    m.requests_kept += p->requests_kept;
    m.trace_window_s = std::max(m.trace_window_s, p->trace_window_s);
    m.prepare_objects += p->prepare_objects;
    m.prepare_bytes += p->prepare_bytes;
  }
  return m;
}

}  // namespace fleet::l2replay
