// The one reader of fleet_summary.json, tolerant as report.html has always been: a run from an
// older release, a partial run or a hand-edited file reads as far as it goes. A missing or
// wrongly typed field is its default (or an empty optional), never an exception.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet/stats/l2_failures_json.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/json_file.h"
#include "fleet/util/status.h"
#include "tolerant_json.h"

namespace fleet::summary {

namespace {

using Json = nlohmann::json;

using namespace tolerant;

RecordCounts records_of(const Json& j) {
  return {count(j, "total"), count(j, "replayed"), count(j, "skipped"), count(j, "failed")};
}

Lateness lateness_of(const Json& j) {
  Lateness l;
  l.records = count(j, "records");
  l.p50 = number(j, "p50");
  l.p99 = number(j, "p99");
  l.max = number(j, "max");
  l.late_over_1ms = count(j, "late_over_1ms");
  l.feed_late = count(j, "feed_late");
  l.engine_late = count(j, "engine_late");
  return l;
}

OpStatsByName ops_of(const Json& j) {
  OpStatsByName ops;
  if (!j.is_object()) return ops;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Json& s = it.value();
    if (!s.is_object()) continue;
    ops[it.key()] = {count(s, "count"),   count(s, "errors"),  number(s, "mean_ms"),
                     number(s, "p50_ms"), number(s, "p90_ms"), number(s, "p99_ms"),
                     number(s, "min_ms"), number(s, "max_ms")};
  }
  return ops;
}

// Tolerant like every reader here: a misses section that does not parse reads as absent.
std::optional<stats::MissSummary> misses_of(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    return stats::MissSummary::from_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Tolerant like every reader here: a pacing section that does not parse reads as absent.
std::optional<causal::PacingStats> pacing_of(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    return causal::PacingStats::from_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// An L2 failure list (none when absent), or why it could not be read (the page shows it).
Result<std::vector<stats::L2FailureRecord>> l2_failures_of(const Json& j) {
  if (j.is_null()) return std::vector<stats::L2FailureRecord>{};
  try {
    return stats::l2_failures_from_json(j);
  } catch (const std::exception& e) {  // the list's decoder names the entry and field
    return Status::error(e.what());
  }
}

NodeSummary node_of(const Json& j) {
  NodeSummary n;
  n.name = text(j, "name");
  n.address = text(j, "address");
  n.status = text(j, "status");
  n.records = records_of(field(j, "records"));
  n.records_received = count(j, "records_received");
  n.duration_s = number(j, "duration_s");
  n.lateness = lateness_of(field(j, "lateness_us"));
  n.ops = ops_of(field(j, "ops"));
  const Json& engine = field(j, "engine");
  n.engine_name = text(engine, "name");
  n.config_digest = text(engine, "config_digest");
  n.counters = field(engine, "counters");
  n.counter = counter_view(n.counters);
  n.clock_offset_us = number(j, "clock_offset_us");
  n.clock_uncertainty_us = number(j, "clock_uncertainty_us");
  n.start_skew_us = number(j, "start_skew_us");
  n.read_exits_without_enter = count(j, "read_exits_without_enter");
  n.dangling_read_contexts_closed = count(j, "dangling_read_contexts_closed");
  if (auto failures = l2_failures_of(field(j, "l2_failures"))) {
    n.l2_failures = std::move(failures).value();
  }
  n.pacing = pacing_of(field(j, "pacing"));
  return n;
}

KeyBytes key_bytes(const Json& j) { return {count(j, "keys"), count(j, "bytes")}; }

PrefetchSummary prefetch_of(const Json& j) {
  PrefetchSummary p;
  p.requested = key_bytes(field(j, "requested"));
  p.l1 = key_bytes(field(j, "l1"));
  p.l2 = key_bytes(field(j, "l2"));
  for (const Json& a : array(j, "l2_by_adapter"))
    p.l2_by_adapter.push_back({key_bytes(a), count(a, "adapter"), text(a, "type")});
  p.missed = key_bytes(field(j, "missed"));
  const Json& reasons = field(j, "missed_by_reason");
  p.not_found = key_bytes(field(reasons, "not_found"));
  p.load_failed = key_bytes(field(reasons, "load_failed"));
  p.trimmed = key_bytes(field(reasons, "trimmed"));
  p.abandoned = key_bytes(field(reasons, "abandoned"));
  p.in_flight = key_bytes(field(j, "in_flight"));
  p.l1_hit_rate = number(j, "l1_hit_rate");
  p.l2_hit_rate = number(j, "l2_hit_rate");
  p.l1_l2_hit_rate = number(j, "l1_l2_hit_rate");
  p.miss_rate = number(j, "miss_rate");
  p.byte_l1_l2_hit_rate = number(j, "byte_l1_l2_hit_rate");
  return p;
}

std::optional<CacheSummary> cache_of(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  CacheSummary c;
  c.lookup = prefetch_of(field(j, "lookup"));
  c.warm = prefetch_of(field(j, "warm"));
  const Json& w = field(j, "writes");
  c.reserved = key_bytes(field(w, "reserved"));
  c.refused_oom = key_bytes(field(w, "refused_oom"));
  c.not_writable_keys = count(w, "not_writable_keys");
  c.stored_keys = count(w, "stored_keys");
  c.evicted = key_bytes(field(w, "evicted"));
  for (const Json& n : array(j, "per_node")) {
    c.per_node.push_back({text(n, "name"), count(n, "lookup_keys"), number(n, "l1_hit_rate"),
                          number(n, "l2_hit_rate"), number(n, "l1_l2_hit_rate"),
                          number(n, "miss_rate")});
  }
  return c;
}

std::optional<ContentionSummary> contention_of(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  ContentionSummary c;
  c.window_s = opt_number(field(j, "window_s")).value_or(1.0);
  const Json& per_op = field(j, "per_op");
  if (per_op.is_object()) {
    for (auto it = per_op.begin(); it != per_op.end(); ++it) {
      const Json& v = it.value();
      c.per_op[it.key()] = {count(v, "n"), count(v, "bytes"), number(v, "ops_per_s"),
                            number(v, "p50_us"), number(v, "p99_us")};
    }
  }
  const Json& per_node = field(j, "per_node");
  if (per_node.is_object()) {
    for (auto it = per_node.begin(); it != per_node.end(); ++it)
      c.per_node.emplace_back(it.key(), opt_number(it.value()).value_or(0.0));
  }
  c.fairness = opt_number(field(j, "fairness"));
  for (const Json& w : array(j, "windows")) {
    ContentionSummary::Window win;
    win.t = integer(w, "t");
    win.fairness = opt_number(field(w, "fairness"));
    const Json& nodes = field(w, "nodes");
    for (auto it = nodes.begin(); nodes.is_object() && it != nodes.end(); ++it) {
      std::map<std::string, ContentionSummary::WindowOp> kinds;
      if (it.value().is_object()) {
        for (auto k = it.value().begin(); k != it.value().end(); ++k)
          kinds[k.key()] = {count(k.value(), "n"), number(k.value(), "p99_us")};
      }
      win.nodes.emplace_back(it.key(), std::move(kinds));
    }
    c.windows.push_back(std::move(win));
  }
  return c;
}

Cdf cdf_of(const Json& j) {
  Cdf cdf;
  if (!j.is_array()) return cdf;
  for (const Json& p : j) {
    if (p.is_array() && p.size() == 2) {
      const auto x = opt_number(p[0]), f = opt_number(p[1]);
      if (x && f) cdf.emplace_back(*x, *f);
    }
  }
  return cdf;
}

OpHistogram histogram_of(const Json& j) {
  OpHistogram h;
  try {
    h.histogram = stats::LogLinearHistogram::from_json(j);
  } catch (const std::exception& e) {
    h.error = e.what();
  }
  return h;
}

TraceSummary trace_of(const Json& j) {
  TraceSummary t;
  t.path = text(j, "path");
  t.level = text(j, "level");
  if (field(j, "schema").is_number_integer()) t.schema = integer(j, "schema");
  t.header_digest = text(j, "header_digest");
  t.malformed_frames_dropped = count(j, "malformed_frames_dropped");
  t.truncated_tail = flag(j, "truncated_tail");
  return t;
}

// The keys this reader types; every other top-level key is kept in `extra`.
const std::set<std::string>& typed_keys() {
  static const std::set<std::string> keys = {"records",
                                             "duration_s",
                                             "speed",
                                             "clock",
                                             "mode",
                                             "stopped_early",
                                             "lateness_us",
                                             "ops",
                                             "engine",
                                             "digest_comparison",
                                             "trace",
                                             "nodes",
                                             "plan",
                                             "contention",
                                             "l2_failures",
                                             "cache",
                                             "latency_cdf_ms",
                                             "latency_histograms_ns",
                                             "lateness_cdf_us",
                                             "accounting"};
  return keys;
}

}  // namespace

CounterView counter_view(const nlohmann::json& c) {
  CounterView v;
  v.lost_reason = text(c, "lost_reason");
  if (field(c, "records_confirmed_finished").is_number())
    v.records_confirmed_finished = count(c, "records_confirmed_finished");
  for (const Json& a : array(c, "l2_adapters")) {
    v.l2_adapters.push_back({text(a, "type"), count(a, "store_tasks"),
                             count(a, "store_failed_tasks"), count(a, "load_keys"),
                             count(a, "load_hit_keys"), flag(a, "eviction_enabled"),
                             integer(a, "evicted_keys")});
  }
  v.prefetch_l1_hit_keys = integer(c, "prefetch_l1_hit_keys");
  v.prefetch_l1_miss_keys = integer(c, "prefetch_l1_miss_keys");
  v.l2_lookup_keys = integer(c, "l2_lookup_keys");
  v.l2_lookup_found_keys = integer(c, "l2_lookup_found_keys");
  v.l2_store_failed_tasks = integer(c, "l2_store_failed_tasks");
  return v;
}

CoordinatorView coordinator_view(const nlohmann::json& extra) {
  const Json& j = field(extra, "coordinator");
  CoordinatorView c;
  c.t0_mono_ns = integer(j, "t0_mono_ns");
  if (field(j, "start").is_object()) c.start = field(j, "start");
  if (field(j, "route_plan").is_object()) c.route_plan = field(j, "route_plan");
  return c;
}

std::optional<double> ContentionSummary::node_ops(const std::string& name) const {
  for (const auto& [n, ops] : per_node)
    if (n == name) return ops;
  return std::nullopt;
}

RunSummary from_json(const nlohmann::json& j) {
  RunSummary r;
  r.records = records_of(field(j, "records"));
  r.duration_s = number(j, "duration_s");
  r.speed = opt_number(field(j, "speed"));
  r.clock = text(j, "clock");
  r.mode = text(j, "mode");
  r.stopped_early = flag(j, "stopped_early");
  r.lateness = lateness_of(field(j, "lateness_us"));
  r.pacing = pacing_of(field(j, "pacing"));
  r.misses = misses_of(field(j, "misses"));
  r.ops = ops_of(field(j, "ops"));
  if (const Json& e = field(j, "engine"); e.is_object()) {
    r.engine = EngineSummary{text(e, "name"), text(e, "config_digest"), field(e, "config"),
                             field(e, "counters")};
  }
  r.digest_comparison = text(j, "digest_comparison");
  r.trace = trace_of(field(j, "trace"));
  for (const Json& n : array(j, "nodes")) r.nodes.push_back(node_of(n));
  if (field(j, "plan").is_object()) r.plan = field(j, "plan");
  r.contention = contention_of(field(j, "contention"));
  if (auto failures = l2_failures_of(field(j, "l2_failures"))) {
    r.l2_failures = std::move(failures).value();
  } else {
    r.l2_failures_error = failures.status().message();
  }
  r.cache = cache_of(field(j, "cache"));
  if (const Json& cdfs = field(j, "latency_cdf_ms"); cdfs.is_object()) {
    for (auto it = cdfs.begin(); it != cdfs.end(); ++it) r.latency_cdf_ms[it.key()] = cdf_of(*it);
  }
  if (const Json& hists = field(j, "latency_histograms_ns"); hists.is_object()) {
    for (auto it = hists.begin(); it != hists.end(); ++it)
      r.latency_histograms_ns[it.key()] = histogram_of(*it);
  }
  r.lateness_cdf_us = cdf_of(field(j, "lateness_cdf_us"));
  if (field(j, "accounting").is_object()) r.accounting = field(j, "accounting");
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!typed_keys().count(it.key())) r.extra[it.key()] = it.value();
  }
  r.coordinator = coordinator_view(r.extra);
  return r;
}

Result<RunSummary> read_run_summary(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "fleet_summary.json").string();
  const Result<Json> j = util::read_json_file(path);  // an error names the file
  if (!j) return j.status();
  if (!j->is_object()) return Status::error(path + ": not a JSON object");
  try {  // a field present with the wrong type or an impossible value (tolerant_json.h)
    return from_json(j.value());
  } catch (const std::exception& e) {
    return Status::error(path + ": " + e.what());
  }
}

}  // namespace fleet::summary
