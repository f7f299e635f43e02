#include "fleet/insight/report/outputs.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "fleet/insight/html/report_writer.h"
#include "fleet/insight/report/cache_summary.h"
#include "fleet/insight/report/contention.h"
#include "fleet/insight/report/l2_failure_text.h"
#include "fleet/insight/report/miss_text.h"
#include "fleet/insight/report/pacing_text.h"
#include "fleet/insight/report/run_summary_of.h"
#include "fleet/stats/lmcache_output.h"
#include "fleet/stats/miss_log.h"
#include "fleet/summary/accounting.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/json_read_back.h"
#include "fleet/util/output_file.h"
#include "fleet/util/pyjson.h"

namespace fleet::report {

namespace {

Status write_file(const std::filesystem::path& path, const std::string& text) {
  return util::write_whole_file(path.string(), {text});
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

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

Status prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return Status::error("--output-dir " + dir + ": cannot create directory" +
                         (ec ? ": " + ec.message() : std::string()));
  }
  return Status();
}

std::string render_lmcache_summary(const RunReport& report, const std::string& format) {
  if (format == "json") return stats::render_replay_json(overview(report), report.stats);
  return stats::render_replay_terminal(overview(report), report.stats);
}

static stats::MetricSection lateness_section(const RunReport& r) {
  stats::MetricSection late{"lateness", "Dispatch Lateness (us)", {}};
  late.rows.push_back({"p50", "p50", us(r.lateness.p50_ns())});
  late.rows.push_back({"p99", "p99", us(r.lateness.p99_ns())});
  late.rows.push_back({"max", "max", us(r.lateness.max_ns())});
  late.rows.push_back(
      {"late_1ms", "late > 1 ms", static_cast<int64_t>(r.lateness.late_over_1ms())});
  late.rows.push_back({"feed_late", "fed late", static_cast<int64_t>(r.feed_late)});
  late.rows.push_back({"engine_late", "engine late > 1 ms", static_cast<int64_t>(r.engine_late)});
  return late;
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
  if (r.lateness.count()) sections.push_back(lateness_section(r));
  if (const std::optional<causal::PacingStats> pacing = r.pacing())
    sections.push_back(pacing_section(*pacing));
  if (const std::optional<stats::MissSummary> misses = r.misses())
    sections.push_back(miss_section(*misses));
  const std::optional<summary::ContentionSummary> contention = contention_summary(r);
  const std::vector<stats::L2FailureRecord> l2_failures = r.l2_failures();
  if (contention || !l2_failures.empty()) {
    stats::MetricSection l2{"l2", "L2 Operations", {}};
    if (contention) {
      for (const auto& [kind, op] : contention->per_op) {
        l2.rows.push_back({kind, kind + " ops/s", op.ops_per_s});
        l2.rows.push_back({kind + "_p99", kind + " p99 (us)", op.p99_us});
      }
      if (contention->fairness)
        l2.rows.push_back({"fairness", "Fairness (Jain)", *contention->fairness});
    }
    // The L2 eviction controller's work, over every node's adapters that have one.
    bool evicting = false;
    int64_t evicted = 0;
    for (const auto& n : r.nodes) {
      for (const auto& a : summary::counter_view(n.engine_counters).l2_adapters) {
        if (!a.eviction_enabled) continue;
        evicting = true;
        evicted += a.evicted_keys;
      }
    }
    if (evicting) l2.rows.push_back({"evicted", "evicted keys (L2 eviction)", evicted});
    for (auto& row : l2_failure_rows(l2_failures, r.nodes.size())) l2.rows.push_back(row);
    sections.push_back(l2);
  }
  if (r.nodes.size() > 1) {
    stats::MetricSection nodes{"nodes", "Nodes", {}};
    for (const auto& n : r.nodes) {
      std::string v = wire::node_status_name(n.status) + " rec=" + std::to_string(n.total) +
                      " fail=" + std::to_string(n.failed) +
                      " late p99=" + fmt("%.1fus", us(n.lateness.p99_ns())) +
                      " off=" + fmt("%.0fus", us(n.clock_offset_ns)) + " " +
                      n.config_digest.substr(0, 8);
      uint64_t l2_failed = 0;
      for (const auto& f : n.l2_failures) l2_failed += f.failed;
      if (l2_failed) v += " l2fail=" + std::to_string(l2_failed);
      const auto confirmed = summary::counter_view(n.engine_counters).records_confirmed_finished;
      if (n.status == wire::NodeStatus::Lost && confirmed) {
        v += " confirmed=" + std::to_string(*confirmed) + "/" + std::to_string(n.records_received);
      }
      nodes.rows.push_back({n.name, n.name, v});
    }
    sections.push_back(nodes);
  }
  return stats::render_metrics_terminal("Fleet Replay", sections);
}

std::string render_nodes_csv(const RunReport& r) {
  std::string out =
      "node,address,status,records,replayed,skipped,failed,lateness_p50_us,lateness_p99_us,"
      "clock_offset_us,config_digest\r\n";
  for (const auto& n : r.nodes) {
    stats::append_csv_field(out, n.name);
    out += ',';
    stats::append_csv_field(out, n.address);
    out += ',' + wire::node_status_name(n.status) + ',' + std::to_string(n.total) + ',' +
           std::to_string(n.replayed) + ',' + std::to_string(n.skipped) + ',' +
           std::to_string(n.failed) + ',' + fmt("%.3f", us(n.lateness.p50_ns())) + ',' +
           fmt("%.3f", us(n.lateness.p99_ns())) + ',' + fmt("%.3f", us(n.clock_offset_ns)) + ',' +
           n.config_digest + "\r\n";
  }
  return out;
}

Result<ExitCode> write_outputs(const RunReport& report, const OutputOptions& o) {
  namespace fs = std::filesystem;
  fs::path dir(o.output_dir);
  if (o.write_csv) {
    Status s = write_file(dir / "trace_replay_ops.csv", stats::render_ops_csv(report.stats));
    if (!s) return s;
  }
  if (o.write_summary_json) {
    Status s = write_file(dir / "trace_replay_summary.json",
                          stats::render_summary_json(report.duration_s, report.stats));
    if (!s) return s;
  }
  const summary::RunSummary run_summary = run_summary_of(report);
  const nlohmann::ordered_json summary_json = summary::to_json(run_summary);
  const std::string summary_text = util::py_json_dumps_indent(summary_json, 2) + "\n";
  if (Status s = write_file(dir / "fleet_summary.json", summary_text); !s) return s;
  if (Status s = write_file(dir / "fleet_nodes.csv", render_nodes_csv(report)); !s) return s;
  if (run_summary.misses) {  // the miss log a later run's --baseline pairs with
    Status s = stats::write_miss_log((dir / stats::kMissLogFile).string(), report.miss_events());
    if (!s) return s;
  }
  if (run_summary.contention) {
    Status s = write_file(dir / "fleet_l2_windows.csv", render_l2_windows_csv(report));
    if (!s) return s;
  }
  if (o.write_report) {
    // Drawn from the summary in hand, as the reader reads it from the file: the page
    // `coordinator report DIR` draws, without parsing back what was just written
    // (util/json_read_back.h; nullopt where the text would not carry a value back).
    std::optional<summary::RunSummary> as_read;
    if (auto read_back = util::json_as_read_back(summary_json, summary_text.size()))
      as_read = summary::from_json(*read_back);
    const Result<std::string> page = html::write_report_page(o.output_dir, "", std::move(as_read));
    if (!page) {  // the run's results stand without their picture
      spdlog::warn("report.html not written: {}", page.status().message());
    }
  }
  std::string summary = render_lmcache_summary(report, o.format);
  if (!o.output_path.empty()) {
    if (Status s = write_file(o.output_path, summary); !s) return s;
  }
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
