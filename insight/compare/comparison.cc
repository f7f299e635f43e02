#include "fleet/insight/compare/comparison.h"

#include <set>
#include <stdexcept>

#include "fleet/insight/compare/rate_interval.h"
#include "fleet/stats/replay_result.h"

namespace fleet::compare {

namespace {

using json = nlohmann::json;

const json& field(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

std::optional<double> number(const json& j, const char* key) {
  const json& v = field(j, key);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::string text(const json& j, const char* key) {
  const json& v = field(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}

RunSide side_of(const RunSnapshot& run) {
  const json& s = run.summary;
  RunSide side;
  side.dir = run.dir;
  side.partial = run.partial;
  side.partial_reason = run.partial_reason;
  side.trace = text(field(s, "trace"), "path");
  side.clock = text(s, "clock");
  side.mode = text(s, "mode");
  side.speed = number(s, "speed").value_or(0);
  side.engine = text(field(s, "engine"), "name");
  side.config_digest = text(field(s, "engine"), "config_digest");
  side.digest_comparison = text(s, "digest_comparison");
  side.nodes = field(s, "nodes").is_array() ? static_cast<int>(s["nodes"].size()) : 0;
  return side;
}

// The op's histogram, or nullopt when the run has none for it (a run older than the field).
std::optional<stats::LogLinearHistogram> histogram(const RunSnapshot& run, const std::string& q) {
  const json& all = field(run.summary, "latency_histograms_ns");
  if (!all.is_object() || !all.contains(q)) return std::nullopt;
  try {
    return stats::LogLinearHistogram::from_json(all[q]);
  } catch (const std::exception& e) {
    throw RunInputError(run.dir + "/fleet_summary.json: latency_histograms_ns[\"" + q +
                        "\"]: " + e.what());
  }
}

OpComparison compare_op(const std::string& q, const RunSnapshot& a, const RunSnapshot& b,
                        const BootstrapOptions& options) {
  const json& oa = field(field(a.summary, "ops"), q.c_str());
  const json& ob = field(field(b.summary, "ops"), q.c_str());
  OpComparison op;
  op.qualname = q;
  op.short_name = stats::short_op_name(q);
  op.presence = oa.is_null()   ? OpComparison::Presence::kAdded
                : ob.is_null() ? OpComparison::Presence::kRemoved
                               : OpComparison::Presence::kBoth;
  // An op a run does not list made no call there: count and errors are 0.
  for (const char* key : {"count", "errors"}) {
    op.stats.push_back(
        {key, {number(oa, key).value_or(0), number(ob, key).value_or(0), std::nullopt}});
  }
  // Latency exists only where the op has successful calls.
  const bool samples_a = number(oa, "count").value_or(0) > 0;
  const bool samples_b = number(ob, "count").value_or(0) > 0;
  std::optional<LatencyIntervals> ci;
  if (samples_a && samples_b) {
    const auto ha = histogram(a, q), hb = histogram(b, q);
    if (ha && hb && ha->count() > 0 && hb->count() > 0) {
      ci = bootstrap_latency_change(*ha, *hb, options, stream_of(q));
    } else {
      op.ci_note = std::string("no latency histogram in ") + (ha ? "B" : "A") +
                   "'s fleet_summary.json (a run older than latency_histograms_ns)";
    }
  } else {
    op.ci_note = op.presence != OpComparison::Presence::kBoth
                     ? "the op is in one run only"
                     : "no successful call in " + std::string(samples_a ? "B" : "A");
  }
  struct Stat {
    const char* name;
    const char* key;
    Interval LatencyIntervals::*interval;
  };
  for (const Stat& s : {Stat{"p50", "p50_ms", &LatencyIntervals::p50},
                        Stat{"p90", "p90_ms", &LatencyIntervals::p90},
                        Stat{"p99", "p99_ms", &LatencyIntervals::p99},
                        Stat{"mean", "mean_ms", &LatencyIntervals::mean}}) {
    Change c;
    if (samples_a) c.a = number(oa, s.key);
    if (samples_b) c.b = number(ob, s.key);
    if (ci) c.ci = (*ci).*s.interval;
    c.noise = options.latency_noise;
    op.stats.push_back({s.name, c});
  }
  return op;
}

std::vector<OpComparison> compare_ops(const RunSnapshot& a, const RunSnapshot& b,
                                      const BootstrapOptions& options) {
  std::set<std::string> qualnames;  // the union, in code-point order as the outputs sort them
  for (const RunSnapshot* run : {&a, &b}) {
    const json& ops = field(run->summary, "ops");
    if (!ops.is_object()) continue;
    for (const auto& [q, v] : ops.items()) qualnames.insert(q);
  }
  std::vector<OpComparison> out;
  for (const std::string& q : qualnames) out.push_back(compare_op(q, a, b, options));
  return out;
}

uint64_t keys(const json& lookup, const char* bucket) {
  const auto v = number(field(lookup, bucket), "keys");
  return v && *v > 0 ? static_cast<uint64_t>(*v) : 0;
}

std::vector<NamedChange> compare_cache(const json& sa, const json& sb) {
  const json& la = field(field(sa, "cache"), "lookup");
  const json& lb = field(field(sb, "cache"), "lookup");
  if (!la.is_object() && !lb.is_object()) return {};
  const uint64_t na = keys(la, "requested"), nb = keys(lb, "requested");
  struct Rate {
    const char* name;
    uint64_t (*hits)(const json&);
  };
  const Rate rates[] = {
      {"l1_hit_rate", [](const json& l) { return keys(l, "l1"); }},
      {"l2_hit_rate", [](const json& l) { return keys(l, "l2"); }},
      {"l1_l2_hit_rate", [](const json& l) { return keys(l, "l1") + keys(l, "l2"); }},
      {"miss_rate", [](const json& l) { return keys(l, "missed"); }},
  };
  std::vector<NamedChange> out;
  for (const Rate& r : rates) {
    Change c{number(la, r.name), number(lb, r.name), std::nullopt};
    if (c.comparable() && na > 0 && nb > 0) {
      c.ci = proportion_difference_interval(r.hits(la), na, r.hits(lb), nb);
    }
    out.push_back({r.name, c});
  }
  Change lookups;
  if (la.is_object()) lookups.a = static_cast<double>(na);
  if (lb.is_object()) lookups.b = static_cast<double>(nb);
  out.push_back({"lookup_keys", lookups});
  return out;
}

std::vector<NamedChange> compare_fields(const json& a, const json& b,
                                        std::initializer_list<const char*> names) {
  std::vector<NamedChange> out;
  for (const char* n : names) out.push_back({n, {number(a, n), number(b, n), std::nullopt}});
  return out;
}

std::optional<double> records_per_s(const json& s) {
  const auto total = number(field(s, "records"), "total");
  const auto duration = number(s, "duration_s");
  if (!total || !duration || *duration <= 0) return std::nullopt;
  return *total / *duration;
}

}  // namespace

const Change* find_change(const std::vector<NamedChange>& group, const std::string& name) {
  for (const NamedChange& n : group) {
    if (n.name == name) return &n.change;
  }
  return nullptr;
}

Comparison compare_runs(const RunSnapshot& a, const RunSnapshot& b,
                        const BootstrapOptions& options) {
  Comparison c;
  c.a = side_of(a);
  c.b = side_of(b);
  c.bootstrap = options;
  c.ops = compare_ops(a, b, options);
  c.cache = compare_cache(a.summary, b.summary);
  c.lateness = compare_fields(field(a.summary, "lateness_us"), field(b.summary, "lateness_us"),
                              {"p50", "p99", "max", "late_over_1ms"});
  c.records = compare_fields(field(a.summary, "records"), field(b.summary, "records"),
                             {"total", "replayed", "skipped", "failed"});
  c.records.push_back(
      {"duration_s",
       {number(a.summary, "duration_s"), number(b.summary, "duration_s"), std::nullopt}});
  c.records.push_back(
      {"records_per_s", {records_per_s(a.summary), records_per_s(b.summary), std::nullopt}});
  const json& ca = field(field(a.summary, "engine"), "config");
  const json& cb = field(field(b.summary, "engine"), "config");
  c.configs_present = ca.is_object() && cb.is_object();
  if (c.configs_present) c.config = diff_config(ca, cb);
  return c;
}

}  // namespace fleet::compare
