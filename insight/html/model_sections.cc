#include "fleet/insight/html/model_sections.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "fleet/insight/report/l2_failure_text.h"
#include "fleet/insight/report/miss_text.h"
#include "fleet/insight/report/pacing_text.h"
#include "fleet/stats/replay_result.h"
#include "fleet/summary/pace.h"
#include "fleet/util/json_pair.h"

namespace fleet::report::html {

using json = nlohmann::json;

json round_points(const json& points) {
  json::array_t out;
  if (!points.is_array()) return out;
  out.reserve(points.size());
  for (const auto& p : points) {
    if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number()) {
      out.emplace_back(
          util::json_pair<json>(round4(p[0].get<double>()), round4(p[1].get<double>())));
    }
  }
  return out;
}

json round_points(const summary::Cdf& points) {
  json::array_t out;
  out.reserve(points.size());
  for (const auto& [x, y] : points) out.emplace_back(util::json_pair<json>(round4(x), round4(y)));
  return out;
}

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt("%.2f %%", 100.0 * part / whole) : std::string("0 %");
}

std::string micros(double us) {
  if (us >= 1e6) return fmt("%.2f s", us / 1e6);
  if (us >= 1e3) return fmt("%.2f ms", us / 1e3);
  return fmt("%.1f µs", us);
}

json item(const char* level, const char* title, std::string text) {
  return {{"level", level}, {"title", title}, {"text", std::move(text)}};
}

json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

double as_double(uint64_t v) { return static_cast<double>(v); }

}  // namespace

PartialState partial_state(const RunSummary& summary, const RunFiles& f) {
  PartialState p;
  if (!f.summary) {
    p.partial = true;
    p.reason =
        "the run left no fleet_summary.json (it was killed before writing its results); "
        "this page shows the time series it wrote while running";
    return p;
  }
  std::string why;
  for (const auto& n : summary.nodes) {
    if (n.status == "ok") continue;
    const std::string& lost = n.counter.lost_reason;
    why += (why.empty() ? "" : "; ") + std::string("node ") + n.name + " " + n.status +
           (lost.empty() ? "" : ": " + lost);
  }
  if (summary.stopped_early) {
    p.partial = true;
    p.reason = why.empty() ? "the run stopped early (interrupted or aborted)" : why;
  } else if (!why.empty()) {
    p.partial = true;
    p.reason = why;
  }
  return p;
}

namespace {

json records_item(const RunSummary& summary) {
  const double total = as_double(summary.records.total), failed = as_double(summary.records.failed),
               skipped = as_double(summary.records.skipped);
  if (failed > 0) {
    return item("fail", "Failed records",
                fmt("%.0f", failed) + " of " + fmt("%.0f", total) + " records failed (" +
                    percent(failed, total) + "): the engine raised where LMCache would.");
  }
  return item("ok", "Records",
              "All " + fmt("%.0f", total) + " records were replayed" +
                  (skipped > 0 ? " (" + fmt("%.0f", skipped) + " skipped, as LMCache skips them)"
                               : std::string()) +
                  "; none failed.");
}

json pacing_item(const RunSummary& summary) {
  const summary::Lateness& late = summary.lateness;
  const double paced = as_double(late.records);
  if (summary.speed.value_or(1.0) == 0.0 || paced == 0) {
    return item("ok", "Pacing",
                "Unpaced (--speed 0): records were issued as fast as possible, so lateness "
                "does not apply.");
  }
  const double over = as_double(late.late_over_1ms), p99 = late.p99;
  if (summary::fell_behind(summary)) {
    return item("warn", "Fell behind",
                "The replay fell behind the recording: p99 lateness " + micros(p99) + ", " +
                    fmt("%.0f", over) + " records (" + percent(over, paced) +
                    ") issued more than 1 ms late (" + fmt("%.0f", as_double(late.feed_late)) +
                    " fed late, " + fmt("%.0f", as_double(late.engine_late)) +
                    " behind the engine).");
  }
  return item("ok", "Kept pace",
              "The replay kept the recorded pace: p99 lateness " + micros(p99) + ", max " +
                  micros(late.max) + " over " + fmt("%.0f", paced) + " paced records.");
}

// A node that did not finish: lost (with what it was confirmed to have done) or stopped.
json node_item(const summary::NodeSummary& n) {
  std::string text = "Node " + n.name + " " + n.status;
  if (!n.counter.lost_reason.empty()) text += ": " + n.counter.lost_reason;
  if (n.counter.records_confirmed_finished) {
    text += "; " + fmt("%.0f", as_double(*n.counter.records_confirmed_finished)) + " of " +
            fmt("%.0f", as_double(n.records_received)) + " records sent to it were confirmed";
  }
  return item(n.status == "lost" ? "fail" : "warn",
              n.status == "lost" ? "Node lost" : "Node stopped", text + ".");
}

std::optional<json> digest_item(const std::string& digest) {
  if (digest.rfind("MISMATCH", 0) == 0 || digest.rfind("nodes disagree", 0) == 0) {
    // Deliberate in a what-if run (other L1 size, another L2), so a warning, not a failure.
    return item("warn", "Config digest",
                "Config digest mismatch: " + digest +
                    ". The replay's StorageManager config is not the recorded one.");
  }
  if (digest.rfind("match", 0) == 0) {
    return item("ok", "Config digest",
                "The replay's config digest matches the trace's: " + digest + ".");
  }
  if (digest.empty()) return std::nullopt;
  return item("ok", "Config digest",
              "The trace records no config digest, so there is nothing to compare.");
}

std::optional<json> trace_item(const summary::TraceSummary& tr) {
  const double dropped = as_double(tr.malformed_frames_dropped);
  if (dropped <= 0 && !tr.truncated_tail) return std::nullopt;
  return item("warn", "Trace damaged",
              "The trace is damaged: " + fmt("%.0f", dropped) + " malformed frame(s) dropped" +
                  (tr.truncated_tail ? ", and its tail is truncated." : "."));
}

// One item per adapter whose L2 operations failed (summary "l2_failures", merged over nodes).
void add_l2_failure_items(const RunSummary& summary, json& items) {
  if (!summary.l2_failures_error.empty()) {
    items.push_back(item("warn", "L2 failures", "unreadable: " + summary.l2_failures_error));
    return;
  }
  for (const auto& r : summary.l2_failures)
    items.push_back(item("warn", "L2 failures", l2_failure_sentence(r, summary.nodes.size())));
}

}  // namespace

json verdict_json(const RunSummary& summary, const RunFiles& f) {
  json items = json::array();
  if (f.summary) {
    items.push_back(records_item(summary));
    items.push_back(pacing_item(summary));
    if (summary.pacing) {
      const report::PacingVerdict v = report::pacing_verdict(*summary.pacing);
      items.push_back(item(v.warn ? "warn" : "ok", v.title.c_str(), v.text));
    }
    if (summary.misses) {
      if (const auto v = report::miss_verdict(*summary.misses))
        items.push_back(item(v->warn ? "warn" : "ok", v->title.c_str(), v->text));
    }
  }
  for (const auto& n : summary.nodes)
    if (n.status != "ok") items.push_back(node_item(n));
  if (auto d = digest_item(summary.digest_comparison)) items.push_back(*d);
  if (auto t = trace_item(summary.trace)) items.push_back(*t);
  add_l2_failure_items(summary, items);
  for (const auto& p : f.problems) items.push_back(item("warn", "Files", p + "."));
  std::string status = "ok";
  for (const auto& i : items) {
    if (i["level"] == "fail") status = "fail";
    if (i["level"] == "warn" && status == "ok") status = "warn";
  }
  return {{"status", status}, {"items", items}};
}

json records_json(const summary::RecordCounts& r) {
  return {
      {"total", r.total}, {"replayed", r.replayed}, {"skipped", r.skipped}, {"failed", r.failed}};
}

json run_json(const RunSummary& summary) {
  json r;
  const summary::TraceSummary& tr = summary.trace;
  r["trace"] = tr.path;
  r["level"] = tr.level;
  r["schema"] = tr.schema ? json(*tr.schema) : json(nullptr);
  r["header_digest"] = tr.header_digest;
  r["mode"] = summary.mode;
  r["speed"] = nullable(summary.speed);
  r["clock"] = summary.clock;
  r["duration_s"] = summary.duration_s;
  r["records"] = records_json(summary.records);
  const double d = summary.duration_s;
  r["records_per_s"] = d > 0 ? as_double(summary.records.total) / d : 0.0;
  r["nodes"] = summary.nodes.size();
  r["digest_comparison"] = summary.digest_comparison;
  json digests = json::array();
  const std::string& header = tr.header_digest;
  for (const auto& n : summary.nodes) {
    const std::string& d8 = n.config_digest;
    digests.push_back(
        {{"node", n.name},
         {"digest", d8},
         {"matches_trace", !header.empty() && !d8.empty() &&
                               (header.rfind(d8, 0) == 0 || d8.rfind(header, 0) == 0)}});
  }
  r["digests"] = digests;
  r["plan"] = summary.plan.is_object() ? summary.plan : json::object();
  // A fleet run's T0 decision (protocol.md § 3); null for embedded runs and runs that ended
  // before every worker was ready.
  r["start"] = summary.coordinator.start;
  // What --route-cache did (sharding.md); null without it.
  r["route_plan"] = summary.coordinator.route_plan;
  return r;
}

json nodes_json(const RunSummary& summary,
                const std::map<std::string, std::vector<const stats::RunWindow*>>& windows) {
  std::map<std::string, const summary::NodeHitRates*> cache_by_node;
  if (summary.cache) {
    for (const auto& c : summary.cache->per_node) cache_by_node[c.name] = &c;
  }
  std::map<std::string, uint64_t> l2_ops;
  for (const auto& [name, ws] : windows)
    for (auto* w : ws) l2_ops[name] += w->l2_ops;
  json out = json::array();
  for (const auto& n : summary.nodes) {
    const auto it = cache_by_node.find(n.name);
    const summary::NodeHitRates* c = it == cache_by_node.end() ? nullptr : it->second;
    auto rate = [&](double summary::NodeHitRates::*m) { return c ? json(c->*m) : json(); };
    const double d = n.duration_s;
    out.push_back({{"name", n.name},
                   {"address", n.address},
                   {"status", n.status},
                   {"records", n.records.total},
                   {"replayed", n.records.replayed},
                   {"skipped", n.records.skipped},
                   {"failed", n.records.failed},
                   {"duration_s", d},
                   {"records_per_s", d > 0 ? as_double(n.records.total) / d : 0.0},
                   {"lateness_p50_us", n.lateness.p50},
                   {"lateness_p99_us", n.lateness.p99},
                   {"l1_hit_rate", rate(&summary::NodeHitRates::l1_hit_rate)},
                   {"l2_hit_rate", rate(&summary::NodeHitRates::l2_hit_rate)},
                   {"miss_rate", rate(&summary::NodeHitRates::miss_rate)},
                   {"l2_ops", l2_ops.count(n.name) ? l2_ops[n.name] : 0},
                   {"config_digest", n.config_digest}});
  }
  return out;
}

json ops_json(const RunSummary& summary) {
  json out = json::array();
  for (const auto& [q, s] : summary.ops) {
    json op = {{"count", s.count},   {"errors", s.errors}, {"mean_ms", s.mean_ms},
               {"p50_ms", s.p50_ms}, {"p90_ms", s.p90_ms}, {"p99_ms", s.p99_ms},
               {"min_ms", s.min_ms}, {"max_ms", s.max_ms}};
    op["qualname"] = q;
    op["short"] = stats::short_op_name(q);
    const auto it = summary.latency_cdf_ms.find(q);
    json cdf = it == summary.latency_cdf_ms.end() ? json::array() : round_points(it->second);
    op["cdf"] = std::move(cdf);
    out.push_back(std::move(op));
  }
  return out;
}

json lateness_json(const RunSummary& summary) {
  const summary::Lateness& l = summary.lateness;
  return {{"records", l.records},
          {"p50_us", l.p50},
          {"p99_us", l.p99},
          {"max_us", l.max},
          {"late_over_1ms", l.late_over_1ms},
          {"feed_late", l.feed_late},
          {"engine_late", l.engine_late},
          {"cdf", round_points(summary.lateness_cdf_us)}};
}

namespace {

json prefetch_model(const summary::PrefetchSummary& p) {
  json by = json::array();
  for (const auto& a : p.l2_by_adapter) {
    by.push_back({{"adapter", std::to_string(a.adapter) + ":" + a.type},
                  {"keys", a.served.keys},
                  {"bytes", a.served.bytes}});
  }
  return {{"requested_keys", p.requested.keys},
          {"l1_keys", p.l1.keys},
          {"l2_keys", p.l2.keys},
          {"missed_keys", p.missed.keys},
          {"requested_bytes", p.requested.bytes},
          {"l1_bytes", p.l1.bytes},
          {"l2_bytes", p.l2.bytes},
          {"missed_bytes", p.missed.bytes},
          {"l1_hit_rate", p.l1_hit_rate},
          {"l1_l2_hit_rate", p.l1_l2_hit_rate},
          {"miss_rate", p.miss_rate},
          {"missed",
           {{"not_found", p.not_found.keys},
            {"load_failed", p.load_failed.keys},
            {"trimmed", p.trimmed.keys},
            {"abandoned", p.abandoned.keys}}},
          {"l2_by_adapter", by}};
}

// One L2 adapter's store and load outcomes, summed over the nodes' adapter counters.
struct AdapterTotals {
  std::string name;
  uint64_t stores_ok = 0, stores_failed = 0, loads_ok = 0, loads_failed = 0;
};

uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

json cache_model_json(const RunSummary& summary) {
  if (!summary.cache) return json();
  const summary::CacheSummary& c = *summary.cache;
  json out;
  out["lookup"] = prefetch_model(c.lookup);
  if (c.warm.requested.keys > 0) out["warm"] = prefetch_model(c.warm);
  out["writes"] = {{"stored_keys", c.stored_keys},
                   {"reserved_keys", c.reserved.keys},
                   {"stored_bytes", c.reserved.bytes},
                   {"refused_oom_keys", c.refused_oom.keys},
                   {"refused_oom_bytes", c.refused_oom.bytes},
                   {"evicted_keys", c.evicted.keys},
                   {"evicted_bytes", c.evicted.bytes}};
  // L2 per adapter: store and load outcomes from the nodes' adapter counters, latency per kind
  // from the merged contention histograms.
  std::vector<AdapterTotals> adapters;
  for (const auto& n : summary.nodes) {
    const auto& list = n.counter.l2_adapters;
    for (size_t i = 0; i < list.size(); ++i) {
      if (adapters.size() <= i) adapters.push_back({std::to_string(i) + ":" + list[i].type});
      AdapterTotals& a = adapters[i];
      a.stores_ok += minus(list[i].store_tasks, list[i].store_failed_tasks);
      a.stores_failed += list[i].store_failed_tasks;
      a.loads_ok += list[i].load_hit_keys;
      a.loads_failed += minus(list[i].load_keys, list[i].load_hit_keys);
    }
  }
  auto p99 = [&](const char* kind) {
    if (!summary.contention) return json();
    const auto it = summary.contention->per_op.find(kind);
    return it == summary.contention->per_op.end() ? json() : json(it->second.p99_us);
  };
  json l2 = json::array();
  for (const auto& a : adapters) {
    l2.push_back({{"adapter", a.name},
                  {"stores_ok", a.stores_ok},
                  {"stores_failed", a.stores_failed},
                  {"loads_ok", a.loads_ok},
                  {"loads_failed", a.loads_failed},
                  {"store_p99_us", p99("store")},
                  {"load_p99_us", p99("load")}});
  }
  out["l2"] = l2;
  return out;
}

}  // namespace fleet::report::html
