#include "fleet/insight/html/model_sections.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "fleet/insight/report/l2_failure_text.h"
#include "fleet/stats/l2_failures_json.h"
#include "fleet/stats/replay_result.h"
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

const json& at(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

namespace {

double num(const json& j, const char* key, double fallback = 0.0) {
  const json& v = at(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

uint64_t count(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_number_unsigned() || v.is_number_integer() ? v.get<uint64_t>() : 0;
}

std::string str(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

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

const json& nodes_of(const json& summary) {
  static const json empty = json::array();
  const json& n = at(summary, "nodes");
  return n.is_array() ? n : empty;
}

}  // namespace

PartialState partial_state(const json& summary, const RunFiles& f) {
  PartialState p;
  if (!f.summary) {
    p.partial = true;
    p.reason =
        "the run left no fleet_summary.json (it was killed before writing its results); "
        "this page shows the time series it wrote while running";
    return p;
  }
  std::string why;
  for (const auto& n : nodes_of(summary)) {
    const std::string status = str(n, "status");
    if (status == "ok") continue;
    const std::string lost = str(at(at(n, "engine"), "counters"), "lost_reason");
    why += (why.empty() ? "" : "; ") + std::string("node ") + str(n, "name") + " " + status +
           (lost.empty() ? "" : ": " + lost);
  }
  if (at(summary, "stopped_early").is_boolean() && summary["stopped_early"].get<bool>()) {
    p.partial = true;
    p.reason = why.empty() ? "the run stopped early (interrupted or aborted)" : why;
  } else if (!why.empty()) {
    p.partial = true;
    p.reason = why;
  }
  return p;
}

namespace {

json records_item(const json& summary) {
  const json& rec = at(summary, "records");
  const double total = num(rec, "total"), failed = num(rec, "failed"),
               skipped = num(rec, "skipped");
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

json pacing_item(const json& summary) {
  const json& late = at(summary, "lateness_us");
  const double paced = num(late, "records");
  if (num(summary, "speed", 1.0) == 0.0 || paced == 0) {
    return item("ok", "Pacing",
                "Unpaced (--speed 0): records were issued as fast as possible, so lateness "
                "does not apply.");
  }
  const double over = num(late, "late_over_1ms"), p99 = num(late, "p99");
  if (p99 > 1000.0 || over > 0.01 * paced) {
    return item("warn", "Fell behind",
                "The replay fell behind the recording: p99 lateness " + micros(p99) + ", " +
                    fmt("%.0f", over) + " records (" + percent(over, paced) +
                    ") issued more than 1 ms late (" + fmt("%.0f", num(late, "feed_late")) +
                    " fed late, " + fmt("%.0f", num(late, "engine_late")) + " behind the engine).");
  }
  return item("ok", "Kept pace",
              "The replay kept the recorded pace: p99 lateness " + micros(p99) + ", max " +
                  micros(num(late, "max")) + " over " + fmt("%.0f", paced) + " paced records.");
}

// A node that did not finish: lost (with what it was confirmed to have done) or stopped.
json node_item(const json& n) {
  const std::string status = str(n, "status");
  const json& c = at(at(n, "engine"), "counters");
  std::string text = "Node " + str(n, "name") + " " + status;
  if (!str(c, "lost_reason").empty()) text += ": " + str(c, "lost_reason");
  if (at(c, "records_confirmed_finished").is_number()) {
    text += "; " + fmt("%.0f", num(c, "records_confirmed_finished")) + " of " +
            fmt("%.0f", num(n, "records_received")) + " records sent to it were confirmed";
  }
  return item(status == "lost" ? "fail" : "warn", status == "lost" ? "Node lost" : "Node stopped",
              text + ".");
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

std::optional<json> trace_item(const json& tr) {
  const bool truncated = at(tr, "truncated_tail").is_boolean() && tr["truncated_tail"].get<bool>();
  const double dropped = num(tr, "malformed_frames_dropped");
  if (dropped <= 0 && !truncated) return std::nullopt;
  return item("warn", "Trace damaged",
              "The trace is damaged: " + fmt("%.0f", dropped) + " malformed frame(s) dropped" +
                  (truncated ? ", and its tail is truncated." : "."));
}

// One item per adapter whose L2 operations failed (summary "l2_failures", merged over nodes).
void add_l2_failure_items(const json& summary, json& items) {
  const json& merged = at(summary, "l2_failures");
  if (merged.is_null()) return;
  try {
    for (const auto& r : stats::l2_failures_from_json(merged)) {
      items.push_back(
          item("warn", "L2 failures", l2_failure_sentence(r, nodes_of(summary).size())));
    }
  } catch (const std::exception& e) {
    items.push_back(item("warn", "L2 failures", std::string("unreadable: ") + e.what()));
  }
}

}  // namespace

json verdict_json(const json& summary, const RunFiles& f) {
  json items = json::array();
  if (f.summary) {
    items.push_back(records_item(summary));
    items.push_back(pacing_item(summary));
  }
  for (const auto& n : nodes_of(summary))
    if (str(n, "status") != "ok") items.push_back(node_item(n));
  if (auto d = digest_item(str(summary, "digest_comparison"))) items.push_back(*d);
  if (auto t = trace_item(at(summary, "trace"))) items.push_back(*t);
  add_l2_failure_items(summary, items);
  for (const auto& p : f.problems) items.push_back(item("warn", "Files", p + "."));
  std::string status = "ok";
  for (const auto& i : items) {
    if (i["level"] == "fail") status = "fail";
    if (i["level"] == "warn" && status == "ok") status = "warn";
  }
  return {{"status", status}, {"items", items}};
}

json run_json(const json& summary) {
  json r;
  const json& tr = at(summary, "trace");
  r["trace"] = str(tr, "path");
  r["level"] = str(tr, "level");
  r["schema"] = at(tr, "schema");
  r["header_digest"] = str(tr, "header_digest");
  r["mode"] = str(summary, "mode");
  r["speed"] = at(summary, "speed");
  r["clock"] = str(summary, "clock");
  r["duration_s"] = at(summary, "duration_s");
  r["records"] = at(summary, "records");
  const double d = num(summary, "duration_s");
  r["records_per_s"] = d > 0 ? num(at(summary, "records"), "total") / d : 0.0;
  r["nodes"] = nodes_of(summary).size();
  r["digest_comparison"] = str(summary, "digest_comparison");
  json digests = json::array();
  const std::string header = str(tr, "header_digest");
  for (const auto& n : nodes_of(summary)) {
    const std::string d8 = str(at(n, "engine"), "config_digest");
    digests.push_back(
        {{"node", str(n, "name")},
         {"digest", d8},
         {"matches_trace", !header.empty() && !d8.empty() &&
                               (header.rfind(d8, 0) == 0 || d8.rfind(header, 0) == 0)}});
  }
  r["digests"] = digests;
  r["plan"] = at(summary, "plan").is_object() ? summary["plan"] : json::object();
  // A fleet run's T0 decision (protocol.md § 3); null for embedded runs and runs that ended
  // before every worker was ready.
  const json& start = at(at(summary, "coordinator"), "start");
  r["start"] = start.is_object() ? start : json(nullptr);
  // What --route-cache did (sharding.md); null without it.
  const json& route_plan = at(at(summary, "coordinator"), "route_plan");
  r["route_plan"] = route_plan.is_object() ? route_plan : json(nullptr);
  return r;
}

json nodes_json(const json& summary,
                const std::map<std::string, std::vector<const stats::RunWindow*>>& windows) {
  std::map<std::string, json> cache_by_node;
  for (const auto& c : at(at(summary, "cache"), "per_node").is_array()
                           ? summary["cache"]["per_node"]
                           : json::array()) {
    cache_by_node[str(c, "name")] = c;
  }
  std::map<std::string, uint64_t> l2_ops;
  for (const auto& [name, ws] : windows)
    for (auto* w : ws) l2_ops[name] += w->l2_ops;
  json out = json::array();
  for (const auto& n : nodes_of(summary)) {
    const std::string name = str(n, "name");
    const json& rec = at(n, "records");
    const json& c = cache_by_node.count(name) ? cache_by_node[name] : json();
    const double d = num(n, "duration_s");
    out.push_back({{"name", name},
                   {"address", str(n, "address")},
                   {"status", str(n, "status")},
                   {"records", count(rec, "total")},
                   {"replayed", count(rec, "replayed")},
                   {"skipped", count(rec, "skipped")},
                   {"failed", count(rec, "failed")},
                   {"duration_s", d},
                   {"records_per_s", d > 0 ? num(rec, "total") / d : 0.0},
                   {"lateness_p50_us", num(at(n, "lateness_us"), "p50")},
                   {"lateness_p99_us", num(at(n, "lateness_us"), "p99")},
                   {"l1_hit_rate", at(c, "l1_hit_rate")},
                   {"l2_hit_rate", at(c, "l2_hit_rate")},
                   {"miss_rate", at(c, "miss_rate")},
                   {"l2_ops", l2_ops.count(name) ? l2_ops[name] : 0},
                   {"config_digest", str(at(n, "engine"), "config_digest")}});
  }
  return out;
}

json ops_json(const json& summary) {
  json out = json::array();
  const json& ops = at(summary, "ops");
  const json& cdfs = at(summary, "latency_cdf_ms");
  if (!ops.is_object()) return out;
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    const std::string q = it.key();
    json op = it.value();
    op["qualname"] = q;
    op["short"] = stats::short_op_name(q);
    op["cdf"] = cdfs.is_object() && cdfs.contains(q) ? round_points(cdfs[q]) : json::array();
    out.push_back(std::move(op));
  }
  return out;
}

json lateness_json(const json& summary) {
  const json& l = at(summary, "lateness_us");
  return {{"records", at(l, "records")},
          {"p50_us", at(l, "p50")},
          {"p99_us", at(l, "p99")},
          {"max_us", at(l, "max")},
          {"late_over_1ms", at(l, "late_over_1ms")},
          {"feed_late", at(l, "feed_late")},
          {"engine_late", at(l, "engine_late")},
          {"cdf", round_points(at(summary, "lateness_cdf_us"))}};
}

namespace {

json prefetch_model(const json& p) {
  if (!p.is_object()) return json();
  auto kb = [&](const json& j, const char* k) { return count(at(j, k), "keys"); };
  auto bytes = [&](const json& j, const char* k) { return count(at(j, k), "bytes"); };
  const json& reasons = at(p, "missed_by_reason");
  json by = json::array();
  for (const auto& a : at(p, "l2_by_adapter").is_array() ? p["l2_by_adapter"] : json::array()) {
    by.push_back({{"adapter", std::to_string(count(a, "adapter")) + ":" + str(a, "type")},
                  {"keys", count(a, "keys")},
                  {"bytes", count(a, "bytes")}});
  }
  return {{"requested_keys", kb(p, "requested")},
          {"l1_keys", kb(p, "l1")},
          {"l2_keys", kb(p, "l2")},
          {"missed_keys", kb(p, "missed")},
          {"requested_bytes", bytes(p, "requested")},
          {"l1_bytes", bytes(p, "l1")},
          {"l2_bytes", bytes(p, "l2")},
          {"missed_bytes", bytes(p, "missed")},
          {"l1_hit_rate", at(p, "l1_hit_rate")},
          {"l1_l2_hit_rate", at(p, "l1_l2_hit_rate")},
          {"miss_rate", at(p, "miss_rate")},
          {"missed",
           {{"not_found", kb(reasons, "not_found")},
            {"load_failed", kb(reasons, "load_failed")},
            {"trimmed", kb(reasons, "trimmed")},
            {"abandoned", kb(reasons, "abandoned")}}},
          {"l2_by_adapter", by}};
}

}  // namespace

json cache_model_json(const json& summary) {
  const json& c = at(summary, "cache");
  if (!c.is_object()) return json();
  json out;
  const json& per_op = at(at(summary, "contention"), "per_op");
  out["lookup"] = prefetch_model(at(c, "lookup"));
  const json& warm = at(c, "warm");
  if (count(at(warm, "requested"), "keys") > 0) out["warm"] = prefetch_model(warm);
  const json& w = at(c, "writes");
  out["writes"] = {{"stored_keys", count(w, "stored_keys")},
                   {"reserved_keys", count(at(w, "reserved"), "keys")},
                   {"stored_bytes", count(at(w, "reserved"), "bytes")},
                   {"refused_oom_keys", count(at(w, "refused_oom"), "keys")},
                   {"refused_oom_bytes", count(at(w, "refused_oom"), "bytes")},
                   {"evicted_keys", count(at(w, "evicted"), "keys")},
                   {"evicted_bytes", count(at(w, "evicted"), "bytes")}};
  // L2 per adapter: store and load outcomes from the nodes' adapter counters, latency per kind
  // from the merged contention histograms.
  std::vector<json> adapters;
  for (const auto& n : nodes_of(summary)) {
    const json& list = at(at(at(n, "engine"), "counters"), "l2_adapters");
    if (!list.is_array()) continue;
    for (size_t i = 0; i < list.size(); ++i) {
      if (adapters.size() <= i) {
        adapters.push_back({{"adapter", std::to_string(i) + ":" + str(list[i], "type")},
                            {"stores_ok", 0},
                            {"stores_failed", 0},
                            {"loads_ok", 0},
                            {"loads_failed", 0}});
      }
      json& a = adapters[i];
      const uint64_t st = count(list[i], "store_tasks"), sf = count(list[i], "store_failed_tasks");
      a["stores_ok"] = a["stores_ok"].get<uint64_t>() + (st > sf ? st - sf : 0);
      a["stores_failed"] = a["stores_failed"].get<uint64_t>() + sf;
      const uint64_t lk = count(list[i], "load_keys"), lh = count(list[i], "load_hit_keys");
      a["loads_ok"] = a["loads_ok"].get<uint64_t>() + lh;
      a["loads_failed"] = a["loads_failed"].get<uint64_t>() + (lk > lh ? lk - lh : 0);
    }
  }
  json l2 = json::array();
  for (auto& a : adapters) {
    a["store_p99_us"] = at(at(per_op, "store"), "p99_us");
    a["load_p99_us"] = at(at(per_op, "load"), "p99_us");
    l2.push_back(a);
  }
  out["l2"] = l2;
  return out;
}

}  // namespace fleet::report::html
