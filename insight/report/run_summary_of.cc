#include "fleet/insight/report/run_summary_of.h"

#include "fleet/insight/report/cache_summary.h"
#include "fleet/insight/report/contention.h"
#include "fleet/insight/report/latency_cdf.h"

namespace fleet::report {

namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

summary::Lateness lateness_of(const stats::LatenessStats& l, uint64_t feed_late,
                              uint64_t engine_late) {
  return {l.count(),         us(l.p50_ns()), us(l.p99_ns()), us(l.max_ns()),
          l.late_over_1ms(), feed_late,      engine_late};
}

summary::OpStatsByName ops_of(const stats::StatsCollector& stats) {
  summary::OpStatsByName ops;
  for (auto& [q, s] : stats.summary()) ops.emplace(std::move(q), s);
  return ops;
}

summary::NodeSummary node_of(const NodeReport& n) {
  summary::NodeSummary s;
  s.name = n.name;
  s.address = n.address;
  s.status = wire::node_status_name(n.status);
  s.records = {n.total, n.replayed, n.skipped, n.failed};
  s.records_received = n.records_received;
  s.duration_s = n.duration_s;
  s.lateness = lateness_of(n.lateness, n.feed_late, n.engine_late);
  s.ops = ops_of(n.stats);
  s.engine_name = n.engine_name;
  s.config_digest = n.config_digest;
  s.counters = n.engine_counters;
  s.counter = summary::counter_view(n.engine_counters);
  s.clock_offset_us = us(n.clock_offset_ns);
  s.clock_uncertainty_us = us(n.clock_uncertainty_ns);
  s.start_skew_us = us(n.start_skew_ns);
  s.read_exits_without_enter = n.dispatch_exits_without_enter;
  s.dangling_read_contexts_closed = n.dangling_contexts_closed;
  s.l2_failures = n.l2_failures;
  s.pacing = n.pacing;
  return s;
}

}  // namespace

summary::RunSummary run_summary_of(const RunReport& r) {
  summary::RunSummary s;
  s.records = {r.total, r.replayed, r.skipped, r.failed};
  s.duration_s = r.duration_s;
  s.speed = r.speed;
  s.clock = r.clock;
  s.mode = r.mode;
  s.stopped_early = r.stopped_early;
  s.lateness = lateness_of(r.lateness, r.feed_late, r.engine_late);
  s.ops = ops_of(r.stats);
  if (!r.nodes.empty()) {
    const NodeReport& first = r.nodes.front();
    s.engine = summary::EngineSummary{
        first.engine_name, r.replay_digest(), first.engine_config,
        r.nodes.size() == 1 ? first.engine_counters : nlohmann::json::object()};
  }
  s.digest_comparison = r.digest_comparison();
  s.trace = {r.trace.path,
             r.trace.level,
             r.trace.header_digest,
             r.trace.schema,
             r.trace.malformed_skipped,
             r.trace.truncated_tail};
  s.nodes.reserve(r.nodes.size());
  for (const auto& n : r.nodes) s.nodes.push_back(node_of(n));
  s.plan = r.plan;
  s.contention = contention_summary(r);
  s.l2_failures = r.l2_failures();
  s.pacing = r.pacing();
  s.misses = r.misses();
  if (auto cache = run_cache(r)) s.cache = cache_summary(*cache);
  s.latency_cdf_ms = op_latency_cdfs(r.stats);
  // Every op's merged latency histogram (ns, ≤ 0.05 % error): what `coordinator compare`
  // resamples for its confidence intervals (docs/compare.md).
  for (const auto& [q, op] : r.stats.ops()) {
    if (op.count()) s.latency_histograms_ns[q].histogram = op.histogram();
  }
  s.lateness_cdf_us = lateness_cdf(r.lateness);
  s.accounting = r.accounting;
  s.extra = r.extra;
  s.coordinator = summary::coordinator_view(r.extra);
  return s;
}

}  // namespace fleet::report
