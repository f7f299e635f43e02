#include "fleet/causal/pacing_stats.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fleet/util/json_number.h"

namespace fleet::causal {

namespace {
// Totals of non-negative times from many nodes stop at INT64_MAX instead of overflowing.
int64_t saturating_add(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_add_overflow(a, b, &out) ? INT64_MAX : out;
}
}  // namespace

std::string_view pacing_name(Pacing p) { return p == Pacing::Causal ? "causal" : "uniform"; }

std::optional<Pacing> pacing_from_name(std::string_view name) {
  if (name == "causal") return Pacing::Causal;
  if (name == "uniform") return Pacing::Uniform;
  return std::nullopt;
}

void PacingStats::count_issue(const Hold& hold, int64_t scaled_target_ns, int64_t causal_ns,
                              int64_t issue_ns, const IssueTimes& times) {
  if (!hold.held()) return;
  if (pacing == Pacing::Causal && hold.not_before_ns > scaled_target_ns) {
    ++held_records;
    hold_ns += hold.not_before_ns - scaled_target_ns;
  }
  const int64_t after_gap = issue_ns - hold.not_before_ns;
  edge_lateness.record(after_gap);
  if (after_gap < 0) ++raced[static_cast<size_t>(hold.binding)];
  // An edge is late when its record's call started more than 50 us after the edge's instant
  // and the edge set that instant. When the schedule placed the record later on purpose (the
  // gap was stretched), a late call is the record's lateness behind the one that held it, not
  // the edge's: counted apart, so that each binding edge is in at most one of the two.
  const bool causal = pacing == Pacing::Causal;
  const int64_t due = causal ? std::max(causal_ns, hold.not_before_ns) : hold.not_before_ns;
  const bool late_at_due = issue_ns - due > kEdgeSlackNs;
  if (causal && causal_ns - hold.not_before_ns > kEdgeSlackNs) {
    ++edges_stretched;
    if (late_at_due) ++stretched_late_over_slack;
  } else if (late_at_due) {
    ++edges_late_over_slack;
    ++late_by_cause[static_cast<size_t>(late_cause(due, kEdgeSlackNs, times))];
  }
}

void PacingStats::count_l2_await(int64_t waited_ns, bool gave_up) {
  ++l2_awaits;
  l2_await_ns += waited_ns;
  if (gave_up) ++l2_await_timeouts;
}

uint64_t PacingStats::raced_total() const {
  uint64_t n = 0;
  for (uint64_t r : raced) n += r;
  return n;
}

void PacingStats::merge(const PacingStats& o) {
  for (size_t i = 0; i < kEdgeKindCount; ++i) {
    edges.found[i] += o.edges.found[i];
    edges.ttl_kept[i] += o.edges.ttl_kept[i];
    edges.cut[i] += o.edges.cut[i];
    raced[i] += o.raced[i];
  }
  cut_counted = cut_counted || o.cut_counted;
  held_records += o.held_records;
  overtakes += o.overtakes;
  l2_awaits += o.l2_awaits;
  l2_await_ns = saturating_add(l2_await_ns, o.l2_await_ns);
  l2_await_timeouts += o.l2_await_timeouts;
  hold_ns = saturating_add(hold_ns, o.hold_ns);
  edge_lateness.merge(o.edge_lateness);
  edges_late_over_slack += o.edges_late_over_slack;
  edges_stretched += o.edges_stretched;
  stretched_late_over_slack += o.stretched_late_over_slack;
  for (size_t i = 0; i < kLateCauseCount; ++i) late_by_cause[i] += o.late_by_cause[i];
}

nlohmann::json PacingStats::to_json() const {
  nlohmann::json by_kind = nlohmann::json::object();
  for (size_t i = 0; i < kEdgeKindCount; ++i) {
    const auto k = static_cast<EdgeKind>(i);
    by_kind[std::string(edge_kind_name(k))] = {{"gap", is_gap_edge(k)},
                                               {"found", edges.found[i]},
                                               {"ttl_kept", edges.ttl_kept[i]},
                                               {"raced", raced[i]}};
    if (cut_counted) by_kind[std::string(edge_kind_name(k))]["cut"] = edges.cut[i];
  }
  nlohmann::json late_causes = nlohmann::json::object();
  for (size_t i = 0; i < kLateCauseCount; ++i)
    late_causes[std::string(late_cause_name(static_cast<LateCause>(i)))] = late_by_cause[i];
  nlohmann::json j = {{"mode", pacing_name(pacing)},
                      {"speed", speed},
                      {"engine_time_scale", engine_time_scale},
                      {"engine_time", engine_follows_trace ? "trace" : "wall"},
                      {"edges", by_kind},
                      {"gap_edges", edges.gap_edges()},
                      {"held_records", held_records},
                      {"hold_s", static_cast<double>(hold_ns) / 1e9},
                      {"hold_ns", hold_ns},
                      {"edge_lateness", edge_lateness.to_json()},
                      {"edges_late_over_50us", edges_late_over_slack},
                      {"edges_late_by_cause", late_causes},
                      {"edges_stretched", edges_stretched},
                      {"edges_stretched_late_over_50us", stretched_late_over_slack},
                      {"edges_early", edge_lateness.early_count()},
                      {"raced_total", raced_total()},
                      {"schedule", partial ? "partial" : "ordered"},
                      {"overtakes", overtakes},
                      {"l2_awaits", l2_awaits},
                      {"l2_await_s", static_cast<double>(l2_await_ns) / 1e9},
                      {"l2_await_ns", l2_await_ns},
                      {"l2_await_timeouts", l2_await_timeouts}};
  if (cut_counted) {
    uint64_t cut = 0;
    for (uint64_t n : edges.cut) cut += n;
    j["edges_cut"] = cut;
  }
  return j;
}

namespace {

// A time total a worker reports: never negative (json_integer refuses it), at most INT64_MAX.
int64_t time_total(const nlohmann::json& j, const char* key, const char* what) {
  return static_cast<int64_t>(
      std::min<uint64_t>(util::json_integer_or<uint64_t>(j, key, 0, what), INT64_MAX));
}

}  // namespace

PacingStats PacingStats::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("pacing: must be an object");
  PacingStats p;
  const auto mode = pacing_from_name(j.value("mode", std::string()));
  if (!mode) throw std::invalid_argument("pacing.mode: must be \"uniform\" or \"causal\"");
  p.pacing = *mode;
  p.speed = util::json_real(j.at("speed"), "pacing.speed");
  p.engine_time_scale = util::json_real(j.at("engine_time_scale"), "pacing.engine_time_scale");
  p.engine_follows_trace = j.value("engine_time", std::string()) == "trace";
  const nlohmann::json& by_kind = j.at("edges");
  for (size_t i = 0; i < kEdgeKindCount; ++i) {
    const std::string name(edge_kind_name(static_cast<EdgeKind>(i)));
    const nlohmann::json& e = by_kind.at(name);
    p.edges.found[i] = util::json_integer_or<uint64_t>(e, "found", 0, "pacing.edges.found");
    p.edges.ttl_kept[i] =
        util::json_integer_or<uint64_t>(e, "ttl_kept", 0, "pacing.edges.ttl_kept");
    p.raced[i] = util::json_integer_or<uint64_t>(e, "raced", 0, "pacing.edges.raced");
    p.edges.cut[i] = util::json_integer_or<uint64_t>(e, "cut", 0, "pacing.edges.cut");
  }
  p.cut_counted = j.contains("edges_cut");
  p.partial = j.value("schedule", std::string()) == "partial";
  p.overtakes = util::json_integer_or<uint64_t>(j, "overtakes", 0, "pacing.overtakes");
  p.l2_awaits = util::json_integer_or<uint64_t>(j, "l2_awaits", 0, "pacing.l2_awaits");
  p.l2_await_ns = time_total(j, "l2_await_ns", "pacing.l2_await_ns");
  p.l2_await_timeouts =
      util::json_integer_or<uint64_t>(j, "l2_await_timeouts", 0, "pacing.l2_await_timeouts");
  p.held_records = util::json_integer_or<uint64_t>(j, "held_records", 0, "pacing.held_records");
  p.hold_ns = time_total(j, "hold_ns", "pacing.hold_ns");
  p.edge_lateness = stats::LatenessStats::from_json(j.at("edge_lateness"));
  p.edges_late_over_slack =
      util::json_integer_or<uint64_t>(j, "edges_late_over_50us", 0, "pacing.edges_late_over_50us");
  p.edges_stretched =
      util::json_integer_or<uint64_t>(j, "edges_stretched", 0, "pacing.edges_stretched");
  p.stretched_late_over_slack = util::json_integer_or<uint64_t>(
      j, "edges_stretched_late_over_50us", 0, "pacing.edges_stretched_late_over_50us");
  if (const auto it = j.find("edges_late_by_cause"); it != j.end()) {
    if (!it->is_object()) throw std::invalid_argument("pacing.edges_late_by_cause: not an object");
    for (size_t i = 0; i < kLateCauseCount; ++i) {
      const std::string name(late_cause_name(static_cast<LateCause>(i)));
      p.late_by_cause[i] = util::json_integer_or<uint64_t>(*it, name.c_str(), 0,
                                                           "pacing.edges_late_by_cause." + name);
    }
  }
  return p;
}

}  // namespace fleet::causal
