#include "fleet/insight/report/cache_summary.h"

#include <cstdio>

namespace fleet::report {

namespace {

// A worker's counters are its word, not ours: a missing or mistyped field reads as 0 (or an
// empty group), never as an exception that would lose the whole run's outputs.
uint64_t u64(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return 0;
  const nlohmann::json& v = j[key];
  return v.is_number_unsigned()                          ? v.get<uint64_t>()
         : v.is_number_integer() && v.get<int64_t>() > 0 ? static_cast<uint64_t>(v.get<int64_t>())
                                                         : 0;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  return j.is_object() && j.contains(key) ? j[key] : empty;
}

engine::KeyBytes key_bytes(const nlohmann::json& j) {
  engine::KeyBytes kb;
  kb.keys = u64(j, "keys");
  kb.bytes = u64(j, "bytes");
  return kb;
}

engine::PrefetchOutcome prefetch_outcome(const nlohmann::json& j) {
  engine::PrefetchOutcome p;
  if (!j.is_object()) return p;
  auto at = [&](const char* k) { return key_bytes(member(j, k)); };
  p.requested = at("requested");
  p.l1 = at("l1");
  if (j.is_object() && j.contains("l2") && j["l2"].is_array()) {
    for (const auto& a : j["l2"]) p.l2.push_back(key_bytes(a));
  }
  p.not_found = at("not_found");
  p.load_failed = at("load_failed");
  p.trimmed = at("trimmed");
  p.abandoned = at("abandoned");
  return p;
}

double frac(uint64_t part, uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

summary::KeyBytes kb(const engine::KeyBytes& k) { return {k.keys, k.bytes}; }

engine::KeyBytes in_flight(const engine::PrefetchOutcome& p) {
  const engine::KeyBytes d = p.decided();
  return {p.requested.keys > d.keys ? p.requested.keys - d.keys : 0,
          p.requested.bytes > d.bytes ? p.requested.bytes - d.bytes : 0};
}

summary::PrefetchSummary prefetch_summary(const engine::PrefetchOutcome& p,
                                          const std::vector<std::string>& types) {
  summary::PrefetchSummary s;
  s.requested = kb(p.requested);
  s.l1 = kb(p.l1);
  s.l2 = kb(p.l2_total());
  for (size_t i = 0; i < p.l2.size(); ++i)
    s.l2_by_adapter.push_back({kb(p.l2[i]), i, i < types.size() ? types[i] : std::string()});
  s.missed = kb(p.missed());
  s.not_found = kb(p.not_found);
  s.load_failed = kb(p.load_failed);
  s.trimmed = kb(p.trimmed);
  s.abandoned = kb(p.abandoned);
  s.in_flight = kb(in_flight(p));
  const HitRates r = hit_rates(p);
  s.l1_hit_rate = r.l1;
  s.l2_hit_rate = r.l2;
  s.l1_l2_hit_rate = r.l1_l2;
  s.miss_rate = r.miss;
  s.byte_l1_l2_hit_rate = frac(p.l1.bytes + p.l2_total().bytes, p.requested.bytes);
  return s;
}

std::string pct(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f%%", f * 100.0);
  return b;
}

}  // namespace

std::optional<engine::CacheOutcome> cache_outcome_of(const nlohmann::json& counters) {
  if (!counters.is_object() || !counters.contains("cache") || !counters["cache"].is_object()) {
    return std::nullopt;
  }
  const nlohmann::json& c = counters["cache"];
  engine::CacheOutcome out;
  out.lookup = prefetch_outcome(member(c, "lookup"));
  out.warm = prefetch_outcome(member(c, "warm"));
  const nlohmann::json& w = member(c, "writes");
  out.write_reserved = key_bytes(member(w, "reserved"));
  out.write_refused_oom = key_bytes(member(w, "refused_oom"));
  out.write_not_writable_keys = u64(w, "not_writable_keys");
  out.stored_keys = u64(w, "stored_keys");
  out.evicted = key_bytes(member(w, "evicted"));
  return out;
}

HitRates hit_rates(const engine::PrefetchOutcome& p) {
  HitRates r;
  const uint64_t n = p.requested.keys;
  r.l1 = frac(p.l1.keys, n);
  r.l2 = frac(p.l2_total().keys, n);
  r.l1_l2 = frac(p.l1.keys + p.l2_total().keys, n);
  r.miss = n ? 1.0 - r.l1_l2 : 0.0;
  return r;
}

std::optional<RunCache> run_cache(const RunReport& report) {
  RunCache c;
  for (const auto& n : report.nodes) {
    auto o = cache_outcome_of(n.engine_counters);
    if (!o) continue;
    c.merged += *o;
    c.nodes.push_back({n.name, std::move(*o)});
    const nlohmann::json& adapters = n.engine_counters.contains("l2_adapters")
                                         ? n.engine_counters["l2_adapters"]
                                         : nlohmann::json::array();
    for (size_t i = c.adapter_types.size(); adapters.is_array() && i < adapters.size(); ++i) {
      const nlohmann::json& type = member(adapters[i], "type");
      c.adapter_types.push_back(type.is_string() ? type.get<std::string>() : std::string());
    }
  }
  if (c.nodes.empty()) return std::nullopt;
  // Every configured adapter gets its row, also one that served nothing.
  for (auto* p : {&c.merged.lookup, &c.merged.warm}) {
    if (p->l2.size() < c.adapter_types.size()) p->l2.resize(c.adapter_types.size());
  }
  return c;
}

summary::CacheSummary cache_summary(const RunCache& c) {
  summary::CacheSummary s;
  s.lookup = prefetch_summary(c.merged.lookup, c.adapter_types);
  s.warm = prefetch_summary(c.merged.warm, c.adapter_types);
  const engine::CacheOutcome& m = c.merged;
  s.reserved = kb(m.write_reserved);
  s.refused_oom = kb(m.write_refused_oom);
  s.not_writable_keys = m.write_not_writable_keys;
  s.stored_keys = m.stored_keys;
  s.evicted = kb(m.evicted);
  for (const auto& n : c.nodes) {
    const HitRates r = hit_rates(n.outcome.lookup);
    s.per_node.push_back({n.name, n.outcome.lookup.requested.keys, r.l1, r.l2, r.l1_l2, r.miss});
  }
  return s;
}

stats::MetricSection cache_section(const RunCache& c) {
  stats::MetricSection s{"cache", "Cache", {}};
  const engine::PrefetchOutcome& p = c.merged.lookup;
  const HitRates r = hit_rates(p);
  auto count = [](uint64_t v) { return static_cast<int64_t>(v); };
  s.rows.push_back({"lookup_keys", "Lookup keys requested", count(p.requested.keys)});
  s.rows.push_back({"l1", "Served from L1", pct(r.l1) + " (" + std::to_string(p.l1.keys) + ")"});
  for (size_t i = 0; i < p.l2.size(); ++i) {
    const std::string name = "L2[" + std::to_string(i) + "]" +
                             (i < c.adapter_types.size() ? " " + c.adapter_types[i] : "");
    s.rows.push_back(
        {"l2_" + std::to_string(i), "Served from " + name,
         pct(frac(p.l2[i].keys, p.requested.keys)) + " (" + std::to_string(p.l2[i].keys) + ")"});
  }
  s.rows.push_back({"hit", "Hit rate (L1 + L2)", pct(r.l1_l2)});
  s.rows.push_back(
      {"missed", "Missed", pct(r.miss) + " (" + std::to_string(p.missed().keys) + ")"});
  s.rows.push_back({"not_found", "  not found", count(p.not_found.keys)});
  s.rows.push_back({"load_failed", "  load failed", count(p.load_failed.keys)});
  s.rows.push_back({"trimmed", "  trimmed by policy", count(p.trimmed.keys)});
  if (p.abandoned.keys)
    s.rows.push_back({"abandoned", "  abandoned at close", count(p.abandoned.keys)});
  if (c.merged.warm.requested.keys) {
    const engine::PrefetchOutcome& w = c.merged.warm;
    s.rows.push_back({"warm", "Warm keys (L1 / L2 / missed)",
                      std::to_string(w.l1.keys) + " / " + std::to_string(w.l2_total().keys) +
                          " / " + std::to_string(w.missed().keys)});
  }
  const engine::CacheOutcome& m = c.merged;
  s.rows.push_back({"stored", "Writes stored", count(m.stored_keys)});
  s.rows.push_back({"refused", "Writes refused (L1 full)", count(m.write_refused_oom.keys)});
  s.rows.push_back({"evicted", "Evicted from L1", count(m.evicted.keys)});
  return s;
}

}  // namespace fleet::report
