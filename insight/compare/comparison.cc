#include "fleet/insight/compare/comparison.h"

#include <optional>
#include <set>
#include <stdexcept>

#include "fleet/insight/compare/rate_interval.h"
#include "fleet/stats/replay_result.h"

namespace fleet::compare {

namespace {

using summary::RunSummary;

RunSide side_of(const RunSnapshot& run) {
  const RunSummary& s = run.summary;
  RunSide side;
  side.dir = run.dir;
  side.partial = run.partial;
  side.partial_reason = run.partial_reason;
  side.trace = s.trace.path;
  side.clock = s.clock;
  side.mode = s.mode;
  side.speed = s.speed.value_or(0);
  if (s.engine) {
    side.engine = s.engine->name;
    side.config_digest = s.engine->config_digest;
  }
  side.digest_comparison = s.digest_comparison;
  side.nodes = static_cast<int>(s.nodes.size());
  return side;
}

// The op's histogram, or nullopt when the run has none for it (a run older than the field).
const stats::LogLinearHistogram* histogram(const RunSnapshot& run, const std::string& q) {
  const auto it = run.summary.latency_histograms_ns.find(q);
  if (it == run.summary.latency_histograms_ns.end()) return nullptr;
  if (!it->second.histogram) {
    throw RunInputError(run.dir + "/fleet_summary.json: latency_histograms_ns[\"" + q +
                        "\"]: " + it->second.error);
  }
  return &*it->second.histogram;
}

const stats::OpSummary* op_of(const RunSnapshot& run, const std::string& q) {
  const auto it = run.summary.ops.find(q);
  return it == run.summary.ops.end() ? nullptr : &it->second;
}

OpComparison compare_op(const std::string& q, const RunSnapshot& a, const RunSnapshot& b,
                        const BootstrapOptions& options) {
  const stats::OpSummary* oa = op_of(a, q);
  const stats::OpSummary* ob = op_of(b, q);
  OpComparison op;
  op.qualname = q;
  op.short_name = stats::short_op_name(q);
  op.presence = !oa   ? OpComparison::Presence::kAdded
                : !ob ? OpComparison::Presence::kRemoved
                      : OpComparison::Presence::kBoth;
  // An op a run does not list made no call there: count and errors are 0.
  auto value = [](const stats::OpSummary* o, uint64_t stats::OpSummary::*m) {
    return o ? static_cast<double>(o->*m) : 0.0;
  };
  op.stats.push_back(
      {"count", {value(oa, &stats::OpSummary::count), value(ob, &stats::OpSummary::count), {}}});
  op.stats.push_back(
      {"errors",
       {value(oa, &stats::OpSummary::errors), value(ob, &stats::OpSummary::errors), std::nullopt}});
  // Latency exists only where the op has successful calls.
  const bool samples_a = oa && oa->count > 0;
  const bool samples_b = ob && ob->count > 0;
  std::optional<LatencyIntervals> ci;
  if (samples_a && samples_b) {
    const stats::LogLinearHistogram* ha = histogram(a, q);
    const stats::LogLinearHistogram* hb = histogram(b, q);
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
    double stats::OpSummary::*value;
    Interval LatencyIntervals::*interval;
  };
  for (const Stat& s : {Stat{"p50", &stats::OpSummary::p50_ms, &LatencyIntervals::p50},
                        Stat{"p90", &stats::OpSummary::p90_ms, &LatencyIntervals::p90},
                        Stat{"p99", &stats::OpSummary::p99_ms, &LatencyIntervals::p99},
                        Stat{"mean", &stats::OpSummary::mean_ms, &LatencyIntervals::mean}}) {
    Change c;
    if (samples_a) c.a = oa->*s.value;
    if (samples_b) c.b = ob->*s.value;
    if (ci) c.ci = (*ci).*s.interval;
    c.noise = options.latency_noise;
    op.stats.push_back({s.name, c});
  }
  return op;
}

std::vector<OpComparison> compare_ops(const RunSnapshot& a, const RunSnapshot& b,
                                      const BootstrapOptions& options) {
  std::set<std::string> qualnames;  // the union, in code-point order as the outputs sort them
  for (const RunSnapshot* run : {&a, &b})
    for (const auto& [q, v] : run->summary.ops) qualnames.insert(q);
  std::vector<OpComparison> out;
  for (const std::string& q : qualnames) out.push_back(compare_op(q, a, b, options));
  return out;
}

const summary::PrefetchSummary* lookup_of(const RunSummary& s) {
  return s.cache ? &s.cache->lookup : nullptr;
}

std::vector<NamedChange> compare_cache(const RunSummary& sa, const RunSummary& sb) {
  const summary::PrefetchSummary* la = lookup_of(sa);
  const summary::PrefetchSummary* lb = lookup_of(sb);
  if (!la && !lb) return {};
  const uint64_t na = la ? la->requested.keys : 0, nb = lb ? lb->requested.keys : 0;
  using P = summary::PrefetchSummary;
  struct Rate {
    const char* name;
    double P::*rate;
    uint64_t (*hits)(const P&);
  };
  const Rate rates[] = {
      {"l1_hit_rate", &P::l1_hit_rate, [](const P& l) { return l.l1.keys; }},
      {"l2_hit_rate", &P::l2_hit_rate, [](const P& l) { return l.l2.keys; }},
      {"l1_l2_hit_rate", &P::l1_l2_hit_rate, [](const P& l) { return l.l1.keys + l.l2.keys; }},
      {"miss_rate", &P::miss_rate, [](const P& l) { return l.missed.keys; }},
  };
  auto rate = [](const P* l, double P::*m) {
    return l ? std::optional<double>(l->*m) : std::nullopt;
  };
  std::vector<NamedChange> out;
  for (const Rate& r : rates) {
    Change c{rate(la, r.rate), rate(lb, r.rate), std::nullopt};
    if (c.comparable() && na > 0 && nb > 0) {
      c.ci = proportion_difference_interval(r.hits(*la), na, r.hits(*lb), nb);
    }
    out.push_back({r.name, c});
  }
  Change lookups;
  if (la) lookups.a = static_cast<double>(na);
  if (lb) lookups.b = static_cast<double>(nb);
  out.push_back({"lookup_keys", lookups});
  return out;
}

std::vector<NamedChange> compare_misses(const RunSummary& sa, const RunSummary& sb) {
  if (!sa.misses && !sb.misses) return {};
  auto value = [](const std::optional<stats::MissSummary>& m, auto get) {
    return m ? std::optional<double>(static_cast<double>(get(*m))) : std::nullopt;
  };
  auto change = [&](const char* name, auto get) {
    return NamedChange{name, {value(sa.misses, get), value(sb.misses, get), std::nullopt}};
  };
  std::vector<NamedChange> out = {change("total", [](const auto& m) { return m.total(); })};
  for (size_t i = 0; i < stats::kMissBlameCount; ++i) {
    out.push_back(change(stats::miss_blame_name(static_cast<stats::MissBlame>(i)).data(),
                         [i](const auto& m) { return m.blame()[i]; }));
  }
  auto only = [](const std::optional<stats::MissSummary>& m) {
    return m && m->baseline
               ? std::optional<double>(static_cast<double>(m->baseline->only_this_run_total()))
               : std::nullopt;
  };
  out.push_back({"only_this_run", {only(sa.misses), only(sb.misses), std::nullopt}});
  return out;
}

template <class Part, class T>
NamedChange field_change(const char* name, const Part& a, const Part& b, T Part::*m) {
  return {name, {static_cast<double>(a.*m), static_cast<double>(b.*m), std::nullopt}};
}

std::vector<NamedChange> compare_lateness(const summary::Lateness& a, const summary::Lateness& b) {
  using L = summary::Lateness;
  return {field_change("p50", a, b, &L::p50), field_change("p99", a, b, &L::p99),
          field_change("max", a, b, &L::max),
          field_change("late_over_1ms", a, b, &L::late_over_1ms)};
}

std::vector<NamedChange> compare_records(const RunSummary& a, const RunSummary& b) {
  using R = summary::RecordCounts;
  return {field_change("total", a.records, b.records, &R::total),
          field_change("replayed", a.records, b.records, &R::replayed),
          field_change("skipped", a.records, b.records, &R::skipped),
          field_change("failed", a.records, b.records, &R::failed),
          field_change("duration_s", a, b, &RunSummary::duration_s)};
}

std::optional<double> records_per_s(const RunSummary& s) {
  if (s.duration_s <= 0) return std::nullopt;
  return static_cast<double>(s.records.total) / s.duration_s;
}

const nlohmann::json& config_of(const RunSummary& s) {
  static const nlohmann::json kNone;
  return s.engine ? s.engine->config : kNone;
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
  c.lateness = compare_lateness(a.summary.lateness, b.summary.lateness);
  c.misses = compare_misses(a.summary, b.summary);
  c.records = compare_records(a.summary, b.summary);
  c.records.push_back(
      {"records_per_s", {records_per_s(a.summary), records_per_s(b.summary), std::nullopt}});
  const nlohmann::json& ca = config_of(a.summary);
  const nlohmann::json& cb = config_of(b.summary);
  c.configs_present = ca.is_object() && cb.is_object();
  if (c.configs_present) c.config = diff_config(ca, cb);
  return c;
}

}  // namespace fleet::compare
