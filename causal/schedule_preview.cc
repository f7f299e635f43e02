#include "fleet/causal/schedule_preview.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fleet::causal {

SchedulePreviewer::SchedulePreviewer(PreviewOptions options)
    : options_(options), finder_(options.ttl) {}

void SchedulePreviewer::add(const trace::Op& op) {
  if (!started_) t_first_ = op.t_mono, started_ = true;
  t_last_ = std::max(t_last_, op.t_mono);
  ++out_.records;
  const double offset = std::max(0.0, (op.t_mono - t_first_) / options_.speed);
  const int64_t scaled = static_cast<int64_t>(std::llround(offset * 1e9));
  const bool causal = options_.pacing == Pacing::Causal;
  if (causal && options_.schedule == Schedule::Partial) {
    drain(scaled);
    if (op.kind != trace::OpKind::Unknown) return add_partial(op, scaled);
  }
  if (op.kind == trace::OpKind::Unknown) {  // skipped, paced, no edges
    free_at_ns_ = std::max(scaled, free_at_ns_);
    last_issue_ns_ = free_at_ns_, last_scaled_ns_ = scaled;
    return;
  }
  const Hold hold = finder_.before_issue(op);
  const int64_t target = causal ? std::max(scaled, hold.not_before_ns) : scaled;
  issue(op, target, scaled, hold);
}

void SchedulePreviewer::add_partial(const trace::Op& op, int64_t scaled) {
  const uint64_t seq = seq_++;
  if (partial_.blocked(op)) return partial_.park({op, scaled, {}, 0, seq}, true);
  const Hold hold = finder_.before_issue(op);
  if (hold.not_before_ns > scaled)
    return partial_.park({op, scaled, hold, hold.not_before_ns, seq}, false);
  if (!partial_.empty()) ++out_.overtakes;
  issue(op, scaled, scaled, hold);
}

void SchedulePreviewer::drain(int64_t limit) {
  while (auto e = partial_.pop_ready(limit)) {
    issue(e->op, e->target_ns, e->scaled_ns, e->hold);
    partial_.issued(*e);
  }
}

void SchedulePreviewer::issue(const trace::Op& op, int64_t target, int64_t scaled,
                              const Hold& hold) {
  if (hold.held()) out_.gap_ns[static_cast<size_t>(hold.binding)].record(hold.binding_gap_ns);
  if (hold.not_before_ns > scaled && options_.pacing == Pacing::Causal) {
    ++out_.held_records;
    hold_ns_ += hold.not_before_ns - scaled;
  }
  const int64_t at = std::max(target, free_at_ns_);
  if (at <= scaled) out_.critical_holds.fill(0);  // on time: the chain starts again
  if (target > scaled) ++out_.critical_holds[static_cast<size_t>(hold.binding)];
  finder_.after_issue(op, at);
  free_at_ns_ = at + options_.call_cost_ns;
  if (at >= last_issue_ns_) last_issue_ns_ = at, last_scaled_ns_ = scaled;
}

SchedulePreview SchedulePreviewer::finish() {
  drain(std::numeric_limits<int64_t>::max());
  out_.edges = finder_.counts();
  out_.trace_s = started_ ? t_last_ - t_first_ : 0.0;
  out_.predicted_wall_s = static_cast<double>(free_at_ns_) / 1e9;
  out_.achievable_speedup = out_.predicted_wall_s > 0 ? out_.trace_s / out_.predicted_wall_s : 0.0;
  out_.hold_s = static_cast<double>(hold_ns_) / 1e9;
  out_.critical_delay_s = static_cast<double>(last_issue_ns_ - last_scaled_ns_) / 1e9;
  return std::move(out_);
}

namespace {
std::string ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
}  // namespace

std::string SchedulePreview::text(double asked_speed) const {
  std::string s = fmt::format("causal plan: {} records over {:.3f} s of trace\n", records, trace_s);
  s += "  edges            found   gap p50      gap p99      gap max\n";
  for (size_t i = 0; i < kEdgeKindCount; ++i) {
    const auto k = static_cast<EdgeKind>(i);
    const auto& h = gap_ns[i];
    s += fmt::format(
        "  {:<16} {:>6}  {:<12} {:<12} {}{}\n", edge_kind_name(k), edges.found[i],
        h.count() ? ms(h.percentile(50)) : "-", h.count() ? ms(h.percentile(99)) : "-",
        h.count() ? ms(h.percentile(100)) : "-",
        is_gap_edge(k) ? "" : fmt::format("  (order; {} kept whole: lock TTL)", edges.ttl_kept[i]));
  }
  s += fmt::format("  held: {} records by {:.3f} s in total; {} overtakes\n", held_records, hold_s,
                   overtakes);
  std::string chain;
  for (size_t i = 0; i < kEdgeKindCount; ++i)
    if (critical_holds[i])
      chain += fmt::format("{}{} {}", chain.empty() ? "" : ", ", critical_holds[i],
                           edge_kind_name(static_cast<EdgeKind>(i)));
  s += fmt::format("  critical path: the last record {:.3f} ms behind its scaled instant{}\n",
                   critical_delay_s * 1e3, chain.empty() ? "" : " (holds: " + chain + ")");
  s += fmt::format("  predicted wall: {:.3f} s; {:g}x asked, {:.1f}x possible\n", predicted_wall_s,
                   asked_speed, achievable_speedup);
  return s + kPreviewAssumes;
}

}  // namespace fleet::causal
