#include "fleet/insight/report/outputs.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "fleet/insight/html/report_writer.h"
#include "fleet/insight/report/cache_summary.h"
#include "fleet/insight/report/contention.h"
#include "fleet/insight/report/l2_failure_text.h"
#include "fleet/insight/report/latency_cdf.h"
#include "fleet/stats/l2_failures_json.h"
#include "fleet/stats/lmcache_output.h"
#include "fleet/summary/accounting.h"
#include "fleet/util/json_number.h"
#include "fleet/util/json_read_back.h"
#include "fleet/util/keyed_object.h"
#include "fleet/util/output_file.h"
#include "fleet/util/pyjson.h"

namespace fleet::report {

namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  util::write_whole_file(path.string(), {text});
}

stats::ReplayOverview overview(const RunReport& r) {
  stats::ReplayOverview o;
  o.level = r.trace.level;
  o.replayed = r.replayed;
  o.skipped = r.skipped;
  o.failed = r.failed;
  o.duration_s = r.duration_s;
  o.header_digest = r.trace.header_digest;
  o.replay_digest = r.replay_digest();
  return o;
}

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

nlohmann::ordered_json lateness_json(const stats::LatenessStats& l, uint64_t feed_late,
                                     uint64_t engine_late) {
  nlohmann::ordered_json j;
  j["records"] = l.count();
  j["p50"] = us(l.p50_ns());
  j["p99"] = us(l.p99_ns());
  j["max"] = us(l.max_ns());
  j["late_over_1ms"] = l.late_over_1ms();
  j["feed_late"] = feed_late;
  j["engine_late"] = engine_late;
  return j;
}

nlohmann::ordered_json ops_json(const stats::StatsCollector& stats) {
  nlohmann::ordered_json ops = util::keyed_object(stats.ops().size());
  for (const auto& [q, s] : stats.summary()) {
    ops[q] = {{"count", s.count},   {"errors", s.errors}, {"mean_ms", s.mean_ms},
              {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms}, {"p99_ms", s.p99_ms},
              {"min_ms", s.min_ms}, {"max_ms", s.max_ms}};
  }
  return ops;
}

nlohmann::ordered_json node_json(const NodeReport& n) {
  nlohmann::ordered_json j = util::keyed_object(16);
  j["name"] = n.name;
  j["address"] = n.address;
  j["status"] = n.status;
  j["records"] = {
      {"total", n.total}, {"replayed", n.replayed}, {"skipped", n.skipped}, {"failed", n.failed}};
  j["records_received"] = n.records_received;  // fleet: records the coordinator sent it
  j["duration_s"] = n.duration_s;
  j["lateness_us"] = lateness_json(n.lateness, n.feed_late, n.engine_late);
  j["ops"] = ops_json(n.stats);
  j["engine"] = {
      {"name", n.engine_name}, {"config_digest", n.config_digest}, {"counters", n.engine_counters}};
  j["clock_offset_us"] = us(n.clock_offset_ns);
  j["clock_uncertainty_us"] = us(n.clock_uncertainty_ns);
  j["start_skew_us"] = us(n.start_skew_ns);
  j["read_exits_without_enter"] = n.dispatch_exits_without_enter;
  j["dangling_read_contexts_closed"] = n.dangling_contexts_closed;
  if (!n.l2_failures.empty()) j["l2_failures"] = stats::l2_failures_json(n.l2_failures);
  return j;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw std::runtime_error("--output-dir " + dir + ": cannot create directory" +
                             (ec ? ": " + ec.message() : std::string()));
  }
}

std::string render_lmcache_summary(const RunReport& report, const std::string& format) {
  if (format == "json") return stats::render_replay_json(overview(report), report.stats);
  return stats::render_replay_terminal(overview(report), report.stats);
}

std::string render_fleet_block(const RunReport& r) {
  std::vector<stats::MetricSection> sections;
  stats::MetricSection run{"run", "Run", {}};
  run.rows.push_back({"mode", "Mode", r.mode});
  run.rows.push_back({"speed", "Speed", r.speed});
  run.rows.push_back({"clock", "Clock", r.clock});
  run.rows.push_back({"nodes", "Nodes", static_cast<int64_t>(r.nodes.size())});
  run.rows.push_back({"digest", "Config digest", r.digest_comparison()});
  if (r.stopped_early) run.rows.push_back({"stopped", "Stopped early", std::string("yes")});
  if (r.trace.malformed_skipped) {
    run.rows.push_back(
        {"malformed", "Malformed frames dropped", static_cast<int64_t>(r.trace.malformed_skipped)});
  }
  if (r.trace.truncated_tail)
    run.rows.push_back({"truncated", "Truncated tail", std::string("yes")});
  // Only when it does not add up: then some record vanished, which is a bug (accounting.h).
  if (!accounting_balances(r)) {
    run.rows.push_back({"accounting", "ACCOUNTING UNBALANCED", accounting_problem(r)});
  }
  sections.push_back(run);
  if (auto cache = run_cache(r)) sections.push_back(cache_section(*cache));
  if (r.lateness.count()) {
    stats::MetricSection late{"lateness", "Dispatch Lateness (us)", {}};
    late.rows.push_back({"p50", "p50", us(r.lateness.p50_ns())});
    late.rows.push_back({"p99", "p99", us(r.lateness.p99_ns())});
    late.rows.push_back({"max", "max", us(r.lateness.max_ns())});
    late.rows.push_back(
        {"late_1ms", "late > 1 ms", static_cast<int64_t>(r.lateness.late_over_1ms())});
    late.rows.push_back({"feed_late", "fed late", static_cast<int64_t>(r.feed_late)});
    late.rows.push_back({"engine_late", "engine late > 1 ms", static_cast<int64_t>(r.engine_late)});
    sections.push_back(late);
  }
  auto contention = contention_json(r);
  const std::vector<stats::L2FailureRecord> l2_failures = r.l2_failures();
  if (contention.contains("per_op") || !l2_failures.empty()) {
    stats::MetricSection l2{"l2", "L2 Operations", {}};
    if (!contention.contains("per_op")) contention["per_op"] = nlohmann::json::object();
    for (auto it = contention["per_op"].begin(); it != contention["per_op"].end(); ++it) {
      const auto& v = it.value();
      l2.rows.push_back({it.key(), it.key() + " ops/s", v["ops_per_s"].get<double>()});
      l2.rows.push_back({it.key() + "_p99", it.key() + " p99 (us)", v["p99_us"].get<double>()});
    }
    if (!contention["fairness"].is_null()) {
      l2.rows.push_back({"fairness", "Fairness (Jain)", contention["fairness"].get<double>()});
    }
    // The L2 eviction controller's work, over every node's adapters that have one.
    bool evicting = false;
    int64_t evicted = 0;
    for (const auto& n : r.nodes) {
      const auto& adapters = n.engine_counters.value("l2_adapters", nlohmann::json::array());
      for (const auto& a : adapters) {
        if (!a.value("eviction_enabled", false)) continue;
        evicting = true;
        evicted += util::json_integer_or<int64_t>(a, "evicted_keys", int64_t{0}, "evicted_keys");
      }
    }
    if (evicting) l2.rows.push_back({"evicted", "evicted keys (L2 eviction)", evicted});
    for (auto& row : l2_failure_rows(l2_failures, r.nodes.size())) l2.rows.push_back(row);
    sections.push_back(l2);
  }
  if (r.nodes.size() > 1) {
    stats::MetricSection nodes{"nodes", "Nodes", {}};
    for (const auto& n : r.nodes) {
      std::string v =
          n.status + " rec=" + std::to_string(n.total) + " fail=" + std::to_string(n.failed) +
          " late p99=" + fmt("%.1fus", us(n.lateness.p99_ns())) +
          " off=" + fmt("%.0fus", us(n.clock_offset_ns)) + " " + n.config_digest.substr(0, 8);
      uint64_t l2_failed = 0;
      for (const auto& f : n.l2_failures) l2_failed += f.failed;
      if (l2_failed) v += " l2fail=" + std::to_string(l2_failed);
      if (n.status == "lost" && n.engine_counters.contains("records_confirmed_finished")) {
        v += " confirmed=" + n.engine_counters["records_confirmed_finished"].dump() + "/" +
             std::to_string(n.records_received);
      }
      nodes.rows.push_back({n.name, n.name, v});
    }
    sections.push_back(nodes);
  }
  return stats::render_metrics_terminal("Fleet Replay", sections);
}

nlohmann::ordered_json fleet_summary_json(const RunReport& r) {
  nlohmann::ordered_json j = util::keyed_object(32);
  j["records"] = {
      {"total", r.total}, {"replayed", r.replayed}, {"skipped", r.skipped}, {"failed", r.failed}};
  j["duration_s"] = r.duration_s;
  j["speed"] = r.speed;
  j["clock"] = r.clock;
  j["mode"] = r.mode;
  j["stopped_early"] = r.stopped_early;
  j["lateness_us"] = lateness_json(r.lateness, r.feed_late, r.engine_late);
  j["ops"] = ops_json(r.stats);
  nlohmann::ordered_json engine;
  if (!r.nodes.empty()) {
    engine["name"] = r.nodes.front().engine_name;
    engine["config_digest"] = r.replay_digest();
    engine["config"] = r.nodes.front().engine_config;
    engine["counters"] =
        r.nodes.size() == 1 ? r.nodes.front().engine_counters : nlohmann::json::object();
  }
  j["engine"] = std::move(engine);
  j["digest_comparison"] = r.digest_comparison();
  j["trace"] = {{"path", r.trace.path},
                {"level", r.trace.level},
                {"schema", r.trace.schema},
                {"header_digest", r.trace.header_digest},
                {"malformed_frames_dropped", r.trace.malformed_skipped},
                {"truncated_tail", r.trace.truncated_tail}};
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  nodes.get_ref<nlohmann::ordered_json::array_t&>().reserve(r.nodes.size());
  for (const auto& n : r.nodes) nodes.push_back(node_json(n));
  j["nodes"] = std::move(nodes);
  if (!r.plan.empty()) j["plan"] = r.plan;
  auto contention = contention_json(r);
  if (!contention.empty()) j["contention"] = std::move(contention);
  if (auto l2_failures = r.l2_failures(); !l2_failures.empty())
    j["l2_failures"] = stats::l2_failures_json(l2_failures, /*merged=*/true);
  if (auto cache = run_cache(r)) j["cache"] = cache_json(*cache);
  j["latency_cdf_ms"] = op_latency_cdf_json(r.stats);
  // Every op's merged latency histogram (ns, ≤ 0.05 % error): what `coordinator compare`
  // resamples for its confidence intervals (docs/compare.md).
  nlohmann::ordered_json hist = util::keyed_object(r.stats.ops().size());
  for (const auto& [q, op] : r.stats.ops()) {
    if (op.count()) hist[std::string(q)] = op.histogram().to_json();
  }
  j["latency_histograms_ns"] = std::move(hist);
  j["lateness_cdf_us"] = lateness_cdf_json(r.lateness);
  if (r.accounting.is_object()) j["accounting"] = r.accounting;
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

std::string render_nodes_csv(const RunReport& r) {
  std::string out =
      "node,address,status,records,replayed,skipped,failed,lateness_p50_us,lateness_p99_us,"
      "clock_offset_us,config_digest\r\n";
  for (const auto& n : r.nodes) {
    stats::append_csv_field(out, n.name);
    out += ',';
    stats::append_csv_field(out, n.address);
    out += ',' + n.status + ',' + std::to_string(n.total) + ',' + std::to_string(n.replayed) + ',' +
           std::to_string(n.skipped) + ',' + std::to_string(n.failed) + ',' +
           fmt("%.3f", us(n.lateness.p50_ns())) + ',' + fmt("%.3f", us(n.lateness.p99_ns())) + ',' +
           fmt("%.3f", us(n.clock_offset_ns)) + ',' + n.config_digest + "\r\n";
  }
  return out;
}

ExitCode write_outputs(const RunReport& report, const OutputOptions& o) {
  namespace fs = std::filesystem;
  fs::path dir(o.output_dir);
  if (o.write_csv) write_file(dir / "trace_replay_ops.csv", stats::render_ops_csv(report.stats));
  if (o.write_summary_json) {
    write_file(dir / "trace_replay_summary.json",
               stats::render_summary_json(report.duration_s, report.stats));
  }
  const nlohmann::ordered_json summary_json = fleet_summary_json(report);
  const std::string summary_text = util::py_json_dumps_indent(summary_json, 2) + "\n";
  write_file(dir / "fleet_summary.json", summary_text);
  write_file(dir / "fleet_nodes.csv", render_nodes_csv(report));
  if (contention_json(report).contains("per_op")) {
    write_file(dir / "fleet_l2_windows.csv", render_l2_windows_csv(report));
  }
  if (o.write_report) {
    try {
      // Drawn from the summary in hand: the page `coordinator report DIR` draws from the file,
      // without parsing back what was just written (util/json_read_back.h).
      html::write_report_page(o.output_dir, "",
                              util::json_as_read_back(summary_json, summary_text.size()));
    } catch (const std::exception& e) {  // the run's results stand without their picture
      spdlog::warn("report.html not written: {}", e.what());
    }
  }
  std::string summary = render_lmcache_summary(report, o.format);
  if (!o.output_path.empty()) write_file(o.output_path, summary);
  if (!o.quiet) {
    std::fwrite(summary.data(), 1, summary.size(), stdout);
    if (o.format != "json") {
      std::string fleet = render_fleet_block(report);
      std::fwrite(fleet.data(), 1, fleet.size(), stdout);
    }
    std::fflush(stdout);
  }
  return report.failed > 0 ? ExitCode::kRecordsFailed : ExitCode::kOk;
}

}  // namespace fleet::report
