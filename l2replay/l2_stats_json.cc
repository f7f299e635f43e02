#include "fleet/l2replay/l2_stats_json.h"

#include <algorithm>
#include <cmath>

#include "fleet/l2replay/l2_timeline_json.h"
#include "fleet/stats/radix_sort.h"
#include "fleet/util/pyjson.h"

namespace fleet::l2replay {

namespace {

using Json = nlohmann::json;
constexpr L2Op kCompared[] = {L2Op::Store, L2Op::LookupTask, L2Op::LoadTask};
constexpr L2Op kAll[] = {L2Op::Store, L2Op::LookupTask, L2Op::LoadTask, L2Op::Unlock, L2Op::Delete};

std::string name(L2Op op) { return std::string(trace::l2_op_name(op)); }

std::vector<double> sorted_us(const stats::OpStats& s) {
  std::vector<double> out;
  out.reserve(s.samples().size());
  for (double ms : s.samples()) out.push_back(ms * 1000.0);
  stats::sort_doubles(out.data(), out.size());  // std::sort's order: latencies are never -0.0
  return out;
}

// One entry of the fork's latency snapshot (operations.read.<adapter> / .write.<adapter>).
Json latency_entry(const L2OpResult& r) {
  const std::vector<double> us = sorted_us(r.latency);
  double sum_us = 0.0;
  for (double v : us) sum_us += v;
  Json j;
  j["submitted"] = r.submitted;
  j["completed"] = r.completed;
  j["unmatched_completed"] = 0;
  j["samples"] = us.size();
  j["total_bytes"] = r.bytes_submitted;
  j["average_latency_us"] = us.empty() ? 0.0 : sum_us / static_cast<double>(us.size());
  j["p50_latency_us"] = interpolated_percentile(us, 50);
  j["p90_latency_us"] = interpolated_percentile(us, 90);
  j["p99_latency_us"] = interpolated_percentile(us, 99);
  j["min_latency_us"] = us.empty() ? 0.0 : us.front();
  j["max_latency_us"] = us.empty() ? 0.0 : us.back();
  // The fork's name: decimal GB per second of *summed task latency*, not bits and not wall
  // clock. The same figure under a name that says so beside it.
  const Json gbps = us.empty() || sum_us <= 0
                        ? Json(nullptr)
                        : Json(static_cast<double>(r.bytes_submitted) / (sum_us * 1000.0));
  j["aggregate_throughput_gbps"] = gbps;
  j["summed_task_latency_gigabytes_per_second"] = gbps;
  return j;
}

void add_latency_snapshot(Json& j, const L2ReplayResult& r) {
  j["schema_version"] = 1;
  j["latency_unit"] = "microseconds";
  j["sample_encoding"] = "uint32";
  j["operations"]["read"][r.adapter_name] = latency_entry(r.of(L2Op::LoadTask));
  j["operations"]["write"][r.adapter_name] = latency_entry(r.of(L2Op::Store));
  const bool cut = r.interrupted;
  j["pending"] = {
      {"read", cut ? r.of(L2Op::LoadTask).submitted - r.of(L2Op::LoadTask).completed : 0},
      {"write", cut ? r.of(L2Op::Store).submitted - r.of(L2Op::Store).completed : 0}};
}

void add_windows(Json& j, const L2Plan& plan, const L2ReplayResult& r) {
  const double window = plan.trace_submission_window_seconds();
  const double scaled = r.speed > 0 ? window / r.speed : 0.0;
  j["source_submission_window_seconds"] = scaled;         // the fork's (misleading) name
  j["scaled_target_submission_window_seconds"] = scaled;  // what it is
  j["trace_submission_window_seconds"] = window;          // the source's own window
  j["actual_submission_window_seconds"] =
      r.dispatched() > 1 ? r.last_dispatch_s - r.first_dispatch_s : 0.0;
  j["total_replay_seconds"] = r.total_replay_seconds;
  j["drain_seconds"] = r.dispatched() > 0 ? r.total_replay_seconds - r.last_dispatch_s : 0.0;
}

void add_waits(Json& j, const L2ReplayResult& r) {
  WaitTotals lag, dep, loop;
  for (const L2OpResult& o : r.ops) {
    lag.max_s = std::max(lag.max_s, o.schedule_lag.max_s), lag.total_s += o.schedule_lag.total_s;
    dep.max_s = std::max(dep.max_s, o.dependency_wait.max_s);
    dep.total_s += o.dependency_wait.total_s;
    loop.max_s = std::max(loop.max_s, o.loop_wait.max_s), loop.total_s += o.loop_wait.total_s;
  }
  const uint64_t n = r.dispatched();
  j["max_schedule_lag_seconds"] = lag.max_s;
  j["mean_schedule_lag_seconds"] = n ? lag.total_s / static_cast<double>(n) : 0.0;
  j["max_dependency_wait_seconds"] = dep.max_s;
  j["total_dependency_wait_seconds"] = dep.total_s;
  // Fleet has no buffer pool: the fork's "buffer wait" is the loop's own delay here.
  j["max_buffer_wait_seconds"] = loop.max_s;
  j["total_buffer_wait_seconds"] = loop.total_s;
}

void add_counts(Json& j, const L2ReplayResult& r) {
  uint64_t bytes = 0;
  for (L2Op op : kAll) {
    const L2OpResult& o = r.of(op);
    if (o.submitted > 0) j["operations_submitted"][name(op)] = o.submitted;
  }
  for (L2Op op : {L2Op::Store, L2Op::LoadTask}) {
    j["bytes_submitted"][name(op)] = r.of(op).bytes_submitted;
    bytes += r.of(op).bytes_submitted;
  }
  if (!j.contains("operations_submitted")) j["operations_submitted"] = Json::object();
  j["total_bytes_submitted"] = bytes;
  j["throughput_bytes_per_second"] =
      r.total_replay_seconds > 0 ? static_cast<double>(bytes) / r.total_replay_seconds : 0.0;
}

void add_outcomes(Json& j, const L2ReplayResult& r) {
  for (L2Op op : kCompared) {
    j["outcome_comparisons"][name(op)] = r.of(op).outcome_comparisons;
    j["outcome_mismatch_counts"][name(op)] = r.of(op).outcome_mismatches;
  }
  const uint64_t n = r.comparisons(), bad = r.mismatches();
  j["outcome_mismatch_count"] = bad;
  j["outcome_matches_source"] = bad == 0;
  j["outcome_mismatch_rate"] = n ? static_cast<double>(bad) / static_cast<double>(n) : 0.0;
  j["outcome_mismatch_samples"] = r.mismatch_samples;
  j["operations_without_outcome_comparison"] = {{"unlock", r.of(L2Op::Unlock).submitted},
                                                {"delete", r.of(L2Op::Delete).submitted}};
}

Json fleet_op(const L2OpResult& o, double seconds) {
  const stats::OpSummary s = o.latency.summary();
  const uint64_t n = o.submitted;
  return {{"submitted", o.submitted},
          {"completed", o.completed},
          {"failed", o.failed},
          {"bytes_submitted", o.bytes_submitted},
          {"bytes_moved", o.bytes_moved},
          {"operations_per_second", seconds > 0 ? static_cast<double>(n) / seconds : 0.0},
          {"latency_ms",
           {{"count", s.count},
            {"mean", s.mean_ms},
            {"p50", s.p50_ms},
            {"p90", s.p90_ms},
            {"p99", s.p99_ms},
            {"min", s.min_ms},
            {"max", s.max_ms}}},
          {"schedule_lag_seconds",
           {{"max", o.schedule_lag.max_s}, {"mean", n ? o.schedule_lag.total_s / double(n) : 0.0}}},
          {"dependency_wait_seconds",
           {{"max", o.dependency_wait.max_s}, {"total", o.dependency_wait.total_s}}},
          {"outcome_comparisons", o.outcome_comparisons},
          {"outcome_mismatches", o.outcome_mismatches}};
}

Json fleet_section(const L2Plan& plan, const L2ReplayResult& r) {
  Json f;
  f["adapter"] = r.adapter_name;
  f["dependency_violations"] = r.dependency_violations;
  f["unmatched_completions"] = r.unmatched_completions;
  f["interrupted"] = r.interrupted;
  f["operations_per_second"] = r.total_replay_seconds > 0
                                   ? static_cast<double>(r.dispatched()) / r.total_replay_seconds
                                   : 0.0;
  for (L2Op op : kAll) f["by_operation"][name(op)] = fleet_op(r.of(op), r.total_replay_seconds);
  f["plan"] = {{"dependency_edges", plan.edge_counts},
               {"forward_edges", plan.forward_edges},
               {"overlapping_store_hits", plan.overlapping_store_hits},
               {"prepare_objects", plan.prepare.size()},
               {"prepare_bytes", plan.prepare_bytes()}};
  return f;
}

}  // namespace

double interpolated_percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - static_cast<double>(lo));
}

Json l2_replay_stats(const L2Plan& plan, const L2ReplayResult& r) {
  Json j;
  j["speedup"] = r.speed;
  j["trace_percent"] = plan.trace_percent;
  j["source_operations_total"] = plan.source_operations_total;
  j["operations_selected"] = plan.ops.size();
  add_windows(j, plan, r);
  add_waits(j, r);
  add_counts(j, r);
  add_outcomes(j, r);
  add_latency_snapshot(j, r);
  j["fleet"] = fleet_section(plan, r);
  add_report_fields(j["fleet"], plan, r);
  return j;
}

std::string l2_replay_stats_text(const L2Plan& plan, const L2ReplayResult& r) {
  return util::py_json_dumps_indent(l2_replay_stats(plan, r), 2) + "\n";
}

}  // namespace fleet::l2replay
