// compare.json: the Comparison as data (docs/compare.md § compare.json). Relative changes that
// are infinite (A was 0) are null, since JSON has no infinity.
#include <cmath>

#include "fleet/insight/compare/compare_outputs.h"

namespace fleet::compare {

namespace {

using json = nlohmann::json;

json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json();
}

const char* significance_key(Significance s) {
  switch (s) {
    case Significance::kNotSignificant:
      return "not_significant";
    case Significance::kIncrease:
      return "increase";
    case Significance::kDecrease:
      return "decrease";
    case Significance::kUnknown:
      break;
  }
  return "unknown";
}

json change_json(const Change& c) {
  return {{"a", optional_number(c.a)},
          {"b", optional_number(c.b)},
          {"change", c.comparable() ? json(c.delta()) : json()},
          {"relative", optional_number(c.relative())},
          {"ci", c.ci ? json::array({c.ci->low, c.ci->high}) : json()},
          {"significance", significance_key(c.significance())}};
}

json group_json(const std::vector<NamedChange>& group) {
  json out = json::object();
  for (const NamedChange& n : group) out[n.name] = change_json(n.change);
  return out;
}

json side_json(const RunSide& s) {
  return {{"dir", s.dir},
          {"partial", s.partial},
          {"partial_reason", s.partial_reason},
          {"trace", s.trace},
          {"clock", s.clock},
          {"mode", s.mode},
          {"speed", s.speed},
          {"engine", s.engine},
          {"nodes", s.nodes},
          {"config_digest", s.config_digest},
          {"digest_comparison", s.digest_comparison}};
}

const char* presence_name(OpComparison::Presence p) {
  switch (p) {
    case OpComparison::Presence::kAdded:
      return "added";
    case OpComparison::Presence::kRemoved:
      return "removed";
    case OpComparison::Presence::kBoth:
      break;
  }
  return "both";
}

json ops_json(const Comparison& c, int& with_interval, int& significant) {
  json ops = json::array();
  for (const OpComparison& op : c.ops) {
    for (const NamedChange& n : op.stats) {
      if (!n.change.ci) continue;
      ++with_interval;
      const Significance s = n.change.significance();
      significant += s == Significance::kIncrease || s == Significance::kDecrease;
    }
    ops.push_back({{"qualname", op.qualname},
                   {"short", op.short_name},
                   {"presence", presence_name(op.presence)},
                   {"ci_note", op.ci_note},
                   {"stats", group_json(op.stats)}});
  }
  return ops;
}

json config_json(const Comparison& c) {
  json diffs = json::array();
  for (const ConfigDifference& d : c.config) {
    diffs.push_back({{"path", d.path},
                     {"kind", kind_name(d.kind)},
                     {"a", d.a},
                     {"b", d.b},
                     {"text", describe(d)}});
  }
  return {{"compared", c.configs_present},
          {"digest_a", c.a.config_digest},
          {"digest_b", c.b.config_digest},
          {"same_digest", c.a.config_digest == c.b.config_digest},
          {"differences", diffs}};
}

}  // namespace

json comparison_json(const Comparison& c, const std::vector<ThresholdOutcome>& outcomes) {
  int with_interval = 0, significant = 0, crossed = 0;
  json out;
  out["a"] = side_json(c.a);
  out["b"] = side_json(c.b);
  out["partial"] = c.a.partial || c.b.partial;
  out["method"] = {{"confidence", 0.95},
                   {"latency", "bootstrap over latency_histograms_ns"},
                   {"resamples", c.bootstrap.resamples},
                   {"seed", c.bootstrap.seed},
                   {"cache_rates", "Newcombe hybrid score interval on lookup key counts"}};
  out["records"] = group_json(c.records);
  out["ops"] = ops_json(c, with_interval, significant);
  out["cache"] = c.cache.empty() ? json() : group_json(c.cache);
  out["lateness_us"] = group_json(c.lateness);
  if (!c.misses.empty()) out["misses"] = group_json(c.misses);  // only runs that classified
  out["config"] = config_json(c);
  json thresholds = json::array();
  for (const ThresholdOutcome& o : outcomes) {
    crossed += o.crossed;
    thresholds.push_back({{"expression", o.expression},
                          {"evaluated", o.evaluated},
                          {"crossed", o.crossed},
                          {"not_significant", o.not_significant},
                          {"message", o.message}});
  }
  out["thresholds"] = thresholds;
  out["summary"] = {{"latency_statistics_with_interval", with_interval},
                    {"significant_latency_changes", significant},
                    {"config_differences", c.config.size()},
                    {"thresholds_crossed", crossed}};
  return out;
}

}  // namespace fleet::compare
