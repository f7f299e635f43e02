// The L2 page's model: the run's figures as the page's sections and charts read them. `ops`
// has the storage report's shape (latency_section and report.js's op_cdf draw it unchanged);
// `l2_series` holds the per-second timeline as [[t, y], ...] per kind for l2_report.js.
#include <algorithm>

#include "fleet/insight/html/l2_report.h"
#include "fleet/insight/html/model_fields.h"
#include "fleet/insight/html/model_sections.h"
#include "fleet/util/build_info.h"
#include "fleet/util/json_pair.h"
#include "fleet/util/utc_time.h"
#include "l2_report_sections.h"

namespace fleet::report::html {

namespace {

using summary::L2KindStats;
using summary::L2RunStats;

Json kind_json(const L2KindStats& k) {
  return {{"kind", k.kind},
          {"submitted", k.submitted},
          {"completed", k.completed},
          {"failed", k.failed},
          {"bytes_submitted", k.bytes_submitted},
          {"bytes_moved", k.bytes_moved},
          {"operations_per_second", k.operations_per_second},
          {"schedule_lag_max_s", k.schedule_lag_max_s},
          {"schedule_lag_mean_s", k.schedule_lag_mean_s},
          {"dependency_wait_max_s", k.dependency_wait_max_s},
          {"dependency_wait_total_s", k.dependency_wait_total_s},
          {"outcome_comparisons", k.outcome_comparisons},
          {"outcome_mismatches", k.outcome_mismatches}};
}

// The storage report's op shape, for the kinds that completed with a latency.
Json ops_json(const L2RunStats& run) {
  Json out = Json::array();
  for (const L2KindStats& k : run.kinds) {
    if (k.latency_count == 0) continue;
    out.push_back({{"qualname", "l2." + k.kind},
                   {"short", k.kind},
                   {"count", k.latency_count},
                   {"errors", k.failed},
                   {"mean_ms", k.latency_mean_ms},
                   {"p50_ms", k.latency_p50_ms},
                   {"p90_ms", k.latency_p90_ms},
                   {"p99_ms", k.latency_p99_ms},
                   {"max_ms", k.latency_max_ms},
                   {"cdf", round_points(k.latency_cdf_ms)}});
  }
  return out;
}

// A count per window as points; the windows the timeline skipped (nothing happened) become
// zeros at the gap's edges, so a line does not bridge an idle stretch.
template <class T>
Json::array_t count_points(const std::vector<int64_t>& index, const std::vector<T>& v, double w) {
  Json::array_t out;
  for (size_t i = 0; i < index.size() && i < v.size(); ++i) {
    if (i > 0 && index[i] > index[i - 1] + 1) {
      out.emplace_back(util::json_pair<Json>(static_cast<double>(index[i - 1] + 1) * w, 0));
      if (index[i] - 1 > index[i - 1] + 1)
        out.emplace_back(util::json_pair<Json>(static_cast<double>(index[i] - 1) * w, 0));
    }
    out.emplace_back(
        util::json_pair<Json>(static_cast<double>(index[i]) * w, static_cast<double>(v[i]) / w));
  }
  return out;
}

// A latency (or lag) per window, only where the window had something to measure.
Json::array_t value_points(const std::vector<int64_t>& index, const std::vector<double>& v,
                           const std::vector<uint64_t>& had, double w) {
  Json::array_t out;
  for (size_t i = 0; i < index.size() && i < v.size() && i < had.size(); ++i)
    if (had[i] > 0)
      out.emplace_back(util::json_pair<Json>(static_cast<double>(index[i]) * w, v[i]));
  return out;
}

Json series_json(const L2RunStats& run) {
  const summary::L2Timeline& t = run.timeline;
  Json s = Json::object();
  for (const char* key : {"dispatched", "completed", "bytes_moved", "latency_p50_us",
                          "latency_p99_us", "schedule_lag_max_s"})
    s[key] = Json::array();
  const double w = t.window_seconds > 0 ? t.window_seconds : 1.0;
  for (const L2KindStats& k : run.kinds) {
    auto it = t.by_operation.find(k.kind);
    if (it == t.by_operation.end()) continue;
    const summary::L2TimelineKind& c = it->second;
    auto add = [&](const char* key, Json::array_t points) {
      s[key].push_back({{"name", k.kind}, {"points", std::move(points)}});
    };
    add("dispatched", count_points(t.index, c.dispatched, w));
    if (k.completed > 0) {
      add("completed", count_points(t.index, c.completed, w));
      add("latency_p50_us", value_points(t.index, c.latency_p50_us, c.completed, w));
      add("latency_p99_us", value_points(t.index, c.latency_p99_us, c.completed, w));
    }
    if (k.bytes_moved > 0) add("bytes_moved", count_points(t.index, c.bytes_moved, w));
    add("schedule_lag_max_s", value_points(t.index, c.schedule_lag_max_s, c.dispatched, w));
  }
  return s;
}

// The verdict's items and its status: the worst level among them.
struct Verdict {
  Json items = Json::array();
  std::string status = "ok";
  void add(const std::string& level, const std::string& title, const std::string& text) {
    items.push_back({{"level", level}, {"title", title}, {"text", text}});
    if (level == "fail" || (level == "warn" && status == "ok")) status = level;
  }
};

Json verdict_json(const L2RunStats& run) {
  Verdict v;
  const uint64_t ops = run.operations(), compared = run.comparisons();
  if (run.dependency_violations == 0) {
    v.add("ok", "Dependencies kept",
          "0 of " + std::to_string(ops) + " operations were issued before a dependency completed");
  } else {
    v.add("fail", "Dependency violations",
          std::to_string(run.dependency_violations) +
              " operations were issued before a dependency completed");
  }
  std::string per_kind;
  for (const L2KindStats& k : run.kinds) {
    if (k.outcome_comparisons == 0) continue;
    per_kind += (per_kind.empty() ? " (" : ", ") + k.kind + " " +
                std::to_string(k.outcome_mismatches) + "/" + std::to_string(k.outcome_comparisons);
  }
  if (!per_kind.empty()) per_kind += ")";
  v.add(run.outcome_mismatch_count == 0 ? "ok" : "warn", "Outcomes vs the source",
        std::to_string(run.outcome_mismatch_count) + " of " + std::to_string(compared) +
            " compared operations differ from the source" + per_kind + "; a metric, not a failure");
  if (run.interrupted) {
    v.add("fail", "Interrupted",
          "the replay stopped after issuing " + std::to_string(ops) + " of " +
              std::to_string(run.operations_selected) + " operations");
  }
  if (run.unmatched_completions > 0) {
    v.add("warn", "Unmatched completions",
          std::to_string(run.unmatched_completions) +
              " completions of tasks the replay did not issue");
  }
  if (!run.timeline.problem.empty()) v.add("warn", "Damaged timeline", run.timeline.problem);
  return {{"status", v.status}, {"items", std::move(v.items)}};
}

Json run_json(const L2RunStats& run) {
  return {{"trace", run.trace},
          {"dir", run.dir},
          {"adapter", run.adapter},
          {"speed", run.speedup},
          {"trace_percent", run.trace_percent},
          {"operations_selected", run.operations_selected},
          {"source_operations_total", run.source_operations_total},
          {"operations", run.operations()},
          {"total_replay_seconds", run.total_replay_seconds},
          {"drain_seconds", run.drain_seconds},
          {"operations_per_second", run.operations_per_second},
          {"total_bytes_submitted", run.total_bytes_submitted},
          {"throughput_bytes_per_second", run.throughput_bytes_per_second},
          {"trace_submission_window_seconds", run.trace_submission_window_seconds},
          {"scaled_target_submission_window_seconds", run.scaled_target_submission_window_seconds},
          {"actual_submission_window_seconds", run.actual_submission_window_seconds}};
}

Json waits_json(const L2RunStats& run) {
  return {{"max_schedule_lag_s", run.max_schedule_lag_seconds},
          {"mean_schedule_lag_s", run.mean_schedule_lag_seconds},
          {"max_dependency_wait_s", run.max_dependency_wait_seconds},
          {"total_dependency_wait_s", run.total_dependency_wait_seconds},
          {"max_loop_wait_s", run.max_buffer_wait_seconds},
          {"total_loop_wait_s", run.total_buffer_wait_seconds}};
}

Json plan_json(const L2RunStats& run) {
  Json p = {{"dependency_edges", run.plan.dependency_edges},
            {"forward_edges", run.plan.forward_edges},
            {"overlapping_store_hits", run.plan.overlapping_store_hits},
            {"prepare_objects", run.plan.prepare_objects},
            {"prepare_bytes", run.plan.prepare_bytes},
            {"plan_sha256", run.plan.plan_sha256}};
  if (run.prepare) {
    p["prepared"] = {{"prepared_objects", run.prepare->prepared_objects},
                     {"prepared_bytes", run.prepare->prepared_bytes},
                     {"store_tasks_succeeded", run.prepare->store_tasks_succeeded},
                     {"store_tasks_failed", run.prepare->store_tasks_failed},
                     {"elapsed_seconds", run.prepare->elapsed_seconds}};
  }
  return p;
}

Json nodes_json(const L2RunStats& run) {
  Json out = Json::array();
  for (const summary::L2NodeStats& n : run.nodes) {
    Json kinds = Json::array();
    for (const L2KindStats& k : n.kinds) {
      Json j = kind_json(k);
      j["p99_ms"] = k.latency_p99_ms;
      kinds.push_back(std::move(j));
    }
    out.push_back({{"name", n.name},
                   {"dependency_violations", n.dependency_violations},
                   {"total_replay_seconds", n.total_replay_seconds},
                   {"kinds", std::move(kinds)}});
  }
  return out;
}

}  // namespace

Json build_l2_report_model(const L2RunStats& run) {
  Json kinds = Json::array();
  for (const L2KindStats& k : run.kinds) kinds.push_back(kind_json(k));
  Json model = {{"title", "Fleet Replay L2 report"},
                {"level", "l2"},
                {"generated_at", util::utc_iso8601_now()},
                {"build_id", util::build_id()},
                {"verdict", verdict_json(run)},
                {"run", run_json(run)},
                {"kinds", std::move(kinds)},
                {"ops", ops_json(run)},
                {"l2_series", series_json(run)},
                {"waits", waits_json(run)},
                {"mismatch_samples", run.outcome_mismatch_samples},
                {"plan", plan_json(run)},
                {"nodes", nodes_json(run)}};
  if (Json fairness = l2_fairness_json(run); !fairness.is_null()) model["fairness"] = fairness;
  if (run.interrupted) {
    model["partial"] = true;
    model["partial_reason"] = "interrupted: the stats cover the operations issued before the stop";
  }
  return model;
}

}  // namespace fleet::report::html
