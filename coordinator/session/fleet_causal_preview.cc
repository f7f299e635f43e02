#include "fleet_causal_preview.h"

#include <fmt/format.h>

#include <algorithm>

#include "fleet/replay/replay_session.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::session {

namespace {

causal::PreviewOptions preview_options(const ReplayOptions& o) {
  causal::PreviewOptions po;
  po.speed = o.speed;
  po.pacing = o.pacing;
  po.ttl = replay::edge_ttl_of(o.engine);
  po.ttl.horizon_s = o.causal_horizon_s;
  po.schedule = o.schedule;
  return po;
}

// A record the replay would skip is paced and has no edges, as in the one-node preview.
trace::Op op_of(const trace::RecordView& rec) {
  trace::Op op;
  try {
    trace::decode_op(rec, op);
  } catch (const std::exception&) {
    op = trace::Op{};
    op.t_mono = rec.t_mono;
  }
  return op;
}

}  // namespace

FleetCausalPreview::FleetCausalPreview(const ReplayOptions& o, const plan::RouterOptions& router)
    : o_(o),
      router_(router),
      cut_(preview_options(o).ttl, std::max<size_t>(1, router.worker_names.size())) {
  const size_t n = std::max<size_t>(1, router.worker_names.size());
  for (size_t i = 0; i < n; ++i)
    nodes_.push_back(std::make_unique<causal::SchedulePreviewer>(preview_options(o)));
}

void FleetCausalPreview::add(const trace::RecordView& rec, const std::vector<plan::Route>& routes) {
  const trace::Op whole = op_of(rec);
  // Key sharding splits a call by key and every key lives on one node: no edge is cut, so the
  // whole-trace finder only runs for the modes that send records whole.
  if (!routes.empty() && router_.mode == plan::ShardMode::Time &&
      whole.kind != trace::OpKind::Unknown) {
    cut_.add(whole, static_cast<uint32_t>(routes.front().worker));
  }
  for (const plan::Route& r : routes) {
    if (r.worker < 0 || static_cast<size_t>(r.worker) >= nodes_.size()) continue;
    trace::Op op = whole;
    if (!r.original) {  // a part of a split call: the keys this node gets
      trace::RecordView part;
      trace::parse_record(reinterpret_cast<const uint8_t*>(r.body.data()), r.body.size(), part);
      op = op_of(part);
    }
    op.t_mono += r.t_shift;
    nodes_[static_cast<size_t>(r.worker)]->add(op);
  }
}

std::string FleetCausalPreview::finish_text() {
  std::string s = fmt::format("causal plan per node (--shard {}, {} nodes):\n",
                              plan::shard_mode_name(router_.mode), nodes_.size());
  s += "  node                 records  predicted wall  possible  held\n";
  size_t slowest = 0;
  std::vector<causal::SchedulePreview> done;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    done.push_back(nodes_[i]->finish());
    if (done[i].predicted_wall_s > done[slowest].predicted_wall_s) slowest = i;
  }
  auto name = [&](size_t i) {
    return i < router_.worker_names.size() ? router_.worker_names[i] : "node-" + std::to_string(i);
  };
  for (size_t i = 0; i < done.size(); ++i) {
    const auto& p = done[i];
    s += fmt::format("  {:<20} {:>8}  {:>12.3f} s  {:>7.1f}x  {}\n", name(i), p.records,
                     p.predicted_wall_s, p.achievable_speedup, p.held_records);
  }
  const auto& worst = done[slowest];
  // The fleet's wall is its slowest node's, over the whole trace's span.
  double trace_s = 0.0;
  for (const auto& p : done) trace_s = std::max(trace_s, p.trace_s);
  const double possible = worst.predicted_wall_s > 0 ? trace_s / worst.predicted_wall_s : 0.0;
  s += fmt::format("  slowest: {}: predicted wall {:.3f} s; {:g}x asked, {:.1f}x possible\n",
                   name(slowest), worst.predicted_wall_s, o_.speed, possible);
  s += causal::kPreviewAssumes;
  if (router_.mode != plan::ShardMode::Time) {
    s += router_.mode == plan::ShardMode::Key
             ? "  edges cut: none (every key's records are on one node)\n"
             : "  edges cut: none (every node replays the whole trace)\n";
    return s;
  }
  const causal::EdgeCounts& e = cut_.whole();
  std::string cut;
  for (size_t i = 0; i < causal::kEdgeKindCount; ++i) {
    if (!e.cut[i]) continue;
    cut +=
        fmt::format("{}{} {} of {}", cut.empty() ? "" : ", ",
                    causal::edge_kind_name(static_cast<causal::EdgeKind>(i)), e.cut[i], e.found[i]);
  }
  s += cut.empty() ? "  edges cut by window boundaries: none\n"
                   : "  edges cut by window boundaries: " + cut +
                         " (the child's node never sees the parent: it keeps its scaled instant)\n";
  return s;
}

}  // namespace fleet::session
