#include "fleet/insight/report/pacing_text.h"

#include <fmt/format.h>

#include <iterator>

namespace fleet::report {

namespace {

// "1234 (write_lifecycle 500, read_lifecycle 734)": a total and its non-zero kinds.
std::string by_kind(const std::array<uint64_t, causal::kEdgeKindCount>& n, bool gap_only) {
  uint64_t total = 0;
  std::string parts;
  for (size_t i = 0; i < causal::kEdgeKindCount; ++i) {
    const auto k = static_cast<causal::EdgeKind>(i);
    if ((gap_only && !causal::is_gap_edge(k)) || n[i] == 0) continue;
    total += n[i];
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", causal::edge_kind_name(k), n[i]);
  }
  return parts.empty() ? std::to_string(total) : fmt::format("{} ({})", total, parts);
}

std::string mode_text(const causal::PacingStats& p) {
  std::string s = fmt::format("{} {:g}x", causal::pacing_name(p.pacing), p.speed);
  if (p.engine_follows_trace)
    s += " (engine time follows the trace)";
  else if (p.engine_time_scale != 1.0)
    s += fmt::format(" (engine time {:g}x)", p.engine_time_scale);
  return s;
}

uint64_t cut_total(const causal::PacingStats& p) {
  uint64_t n = 0;
  for (uint64_t c : p.edges.cut) n += c;
  return n;
}

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

// "previous_call 20, woke_late 3": the late edges' non-zero causes, in the loop's order.
std::string late_causes(const causal::PacingStats& p) {
  using causal::LateCause;
  constexpr LateCause kLoopOrder[] = {LateCause::PreviousCall, LateCause::BetweenCalls,
                                      LateCause::NextRecord,   LateCause::EngineEvents,
                                      LateCause::WokeLate,     LateCause::AfterWaking};
  static_assert(std::size(kLoopOrder) == causal::kLateCauseCount);
  std::string parts;
  for (LateCause c : kLoopOrder) {
    const uint64_t n = p.late_by_cause[static_cast<size_t>(c)];
    if (n == 0) continue;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", causal::late_cause_name(c), n);
  }
  return parts;
}

}  // namespace

stats::MetricSection pacing_section(const causal::PacingStats& p) {
  stats::MetricSection s{"pacing", "Pacing (dependency edges)", {}};
  s.rows.push_back({"mode", "Pacing", mode_text(p)});
  s.rows.push_back({"gap_edges", "Gap edges", by_kind(p.edges.found, true)});
  s.rows.push_back({"order_edges", "Order edges", by_kind(p.edges.found, false)});
  if (p.cut_counted)
    s.rows.push_back({"edges_cut", "Edges cut by the sharding", by_kind(p.edges.cut, false)});
  if (p.pacing == causal::Pacing::Causal) {
    s.rows.push_back({"held", "Records held by an edge", static_cast<int64_t>(p.held_records)});
    s.rows.push_back({"hold_s", "Held in total (s)", static_cast<double>(p.hold_ns) / 1e9});
    s.rows.push_back({"edge_p99_us", "Edge lateness p99 (us)", us(p.edge_lateness.p99_ns())});
    s.rows.push_back({"edge_max_us", "Edge lateness max (us)", us(p.edge_lateness.max_ns())});
    s.rows.push_back(
        {"edges_late_50us", "Edges > 50 us late", static_cast<int64_t>(p.edges_late_over_slack)});
    if (p.edges_late_over_slack > 0)
      s.rows.push_back({"edges_late_causes", "Late edges, by cause", late_causes(p)});
    s.rows.push_back(
        {"edges_early", "Edges early", static_cast<int64_t>(p.edge_lateness.early_count())});
    s.rows.push_back({"edges_stretched", "Edges stretched by the schedule",
                      static_cast<int64_t>(p.edges_stretched)});
    s.rows.push_back({"edges_stretched_late", "Stretched, their record > 50 us behind",
                      static_cast<int64_t>(p.stretched_late_over_slack)});
    if (p.engine_follows_trace) {
      s.rows.push_back(
          {"l2_awaits", "Records waiting for L2 to land", static_cast<int64_t>(p.l2_awaits)});
      s.rows.push_back(
          {"l2_await_s", "Waited for L2 (s)", static_cast<double>(p.l2_await_ns) / 1e9});
      s.rows.push_back({"l2_await_timeouts", "Gave up waiting (1 s)",
                        static_cast<int64_t>(p.l2_await_timeouts)});
    }
  } else {
    s.rows.push_back({"raced", "Edges raced", by_kind(p.raced, false)});
  }
  return s;
}

PacingVerdict pacing_verdict(const causal::PacingStats& p) {
  const uint64_t binding = p.edge_lateness.count();
  if (p.pacing == causal::Pacing::Uniform) {
    const uint64_t raced = p.raced_total();
    if (raced == 0) {
      return {
          false, "Uniform pacing",
          fmt::format("At {:g}x no dependency edge was issued before its recorded gap.", p.speed)};
    }
    return {true, "Speed-up changed the run",
            fmt::format("Uniform pacing at {:g}x issued {} of {} dependency edges before their "
                        "recorded gap ({}): a read went before its prefetch could land, or a "
                        "prefetch before the write it reads was stored, so hit rates may differ "
                        "from a 1x replay. --pacing causal keeps these gaps.",
                        p.speed, raced, binding, by_kind(p.raced, false))};
  }
  const uint64_t early = p.edge_lateness.early_count();
  std::string text = fmt::format(
      "At {:g}x {} gap edges kept their recorded gaps ({} early, {} more than "
      "50 us late, {} stretched by the schedule behind a held record or an L2 wait, p99 {:.1f} "
      "us); {} records were held {:.3f} s in total.",
      p.speed, binding, early, p.edges_late_over_slack, p.edges_stretched,
      us(p.edge_lateness.p99_ns()), p.held_records, static_cast<double>(p.hold_ns) / 1e9);
  if (p.edges_late_over_slack > 0)
    text +=
        fmt::format(" The late edges were held by: {} (docs/causal-pacing.md).", late_causes(p));
  if (p.stretched_late_over_slack > 0)
    text += fmt::format(
        " Of the stretched edges, {} had their record start more than 50 us after its instant, "
        "behind the calls before it.",
        p.stretched_late_over_slack);
  if (cut_total(p) > 0)
    text += fmt::format(
        " The time windows cut {} edges: their parent ran on another node, so the child kept "
        "its scaled instant.",
        by_kind(p.edges.cut, false));
  if (p.l2_awaits > 0)
    text += fmt::format(
        " {} records waited {:.3f} s for their keys' L2 stores or prefetches to "
        "land.",
        p.l2_awaits, static_cast<double>(p.l2_await_ns) / 1e9);
  if (p.l2_await_timeouts > 0) {
    text += fmt::format(
        " {} gave up after 1 s: the L2 backend did not keep up at this speed, "
        "so hit rates may differ from a 1x replay.",
        p.l2_await_timeouts);
    return {true, "Speed-up limited by L2", text};
  }
  return {early > 0, "Causal pacing", text};
}

}  // namespace fleet::report
