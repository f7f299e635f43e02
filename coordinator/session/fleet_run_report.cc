// FleetRun's Report phase: every node's result (or, for a lost one, exactly where it got to),
// the coordinator's own costs, the outputs, and the run's exit status.
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

#include "fleet/coordinator/session/local_workers.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/summary/accounting.h"
#include "fleet/summary/run_report.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/util/clock.h"
#include "fleet/util/clock_kind.h"
#include "fleet/util/thread_cpu.h"
#include "fleet_run_machine.h"

namespace fleet::session {

namespace {

std::string codec_label(wire::BatchCodec c, int level) {
  return c == wire::BatchCodec::None ? "none" : "zstd:" + std::to_string(level);
}

// A lost node's report: exactly where it got to, as far as anyone can know. Its records are
// dispatched in the order they were sent, and PROGRESS confirmed the first
// `records_confirmed` of them.
wire::NodeResult lost_node(const WorkerLink& l, bool streamed) {
  wire::NodeResult node;
  const auto& c = l.counters();
  node.name = l.node_name();
  node.status = wire::NodeStatus::Lost;
  // Its last PROGRESS, never negative and, when the coordinator streamed its records, no more
  // than it was sent (a self-routing worker reads its own): a broken peer's count otherwise.
  const uint64_t sent = streamed ? c.records_sent : UINT64_MAX;
  node.total =
      std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(l.progress().records, 0)), sent);
  node.failed = std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(l.progress().failed, 0)),
                                   node.total);
  node.engine_counters = {{"lost_reason", l.lost_reason()},
                          {"records_finished_at_last_heartbeat", l.progress().records},
                          {"records_confirmed_finished", c.records_confirmed},
                          {"last_confirmed_trace_offset", c.last_confirmed_offset},
                          {"records_unconfirmed", c.records_sent - c.records_confirmed},
                          {"first_unconfirmed_trace_offset", l.first_unconfirmed_offset()}};
  return node;
}

// The coordinator's own cost, so a run can show that its memory stays bounded (credit flow)
// and how much CPU one coordinator spends per record (projecting to large fleets).
nlohmann::json coordinator_usage(double wall_since_t0_s, uint64_t records_sent) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return {{"peak_rss_bytes", static_cast<uint64_t>(ru.ru_maxrss) * 1024},
          {"cpu_user_s", secs(ru.ru_utime)},
          {"cpu_system_s", secs(ru.ru_stime)},
          {"records_sent", records_sent},
          {"wall_since_t0_s", wall_since_t0_s}};
}

// What the batches cost on the wire: per link codec, and raw vs sent bytes over all links; how
// records reached each worker: "shared" (references into its own copy of the trace) or
// "stream" (the records themselves).
void add_batch_costs(nlohmann::json& c, const LinkSet& links, bool fanout) {
  uint64_t raw_bytes = 0, wire_bytes = 0, by_reference = 0;
  uint64_t sent = 0, received = 0, received_bytes = 0;
  nlohmann::json codecs = nlohmann::json::array(), access = nlohmann::json::array();
  nlohmann::json done_bytes = nlohmann::json::array();
  for (const auto& l : links) {
    sent += l->counters().messages_sent;
    received += l->counters().messages_received;
    received_bytes += l->counters().bytes_received;
    done_bytes.push_back(l->counters().done_bytes);
    raw_bytes += l->counters().raw_bytes_sent;
    wire_bytes += l->counters().batch_bytes_sent;
    by_reference += l->counters().records_by_reference;
    codecs.push_back(codec_label(l->codec(), l->codec_level()));
    access.push_back(l->shared_trace() ? "shared" : "stream");
  }
  c["trace_access"] = access;
  c["batch_fanout"] = fanout;
  c["records_by_reference"] = by_reference;
  c["batch_codecs"] = codecs;
  c["batch_raw_bytes"] = raw_bytes;
  c["batch_wire_bytes"] = wire_bytes;
  // The control plane: every message either way, and each node's DONE (docs/scaling.md).
  c["messages"] = {{"sent", sent}, {"received", received}, {"received_bytes", received_bytes}};
  c["done_bytes"] = done_bytes;
}

// Who routed each worker's records (docs/sharding.md): "worker" when it read the trace and
// routed itself, "worker (saved plan)" when it read its share from a saved plan, "coordinator"
// when the coordinator routed and sent them.
void note_who_routed(nlohmann::json& plan, const char* who) {
  if (!plan.is_object() || !plan.contains("workers") || !plan["workers"].is_array()) return;
  for (auto& w : plan["workers"]) w["routed_by"] = who;
}

// The links the run found silent (LocalWorkers::stop kills those workers without a grace).
std::vector<size_t> unresponsive_links(const LinkSet& links) {
  std::vector<size_t> out;
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].unresponsive()) out.push_back(i);
  return out;
}

}  // namespace

ExitCode FleetRun::report() {
  collect_windows();
  timeseries_.reset();  // closed before report.html reads it back
  report::RunReport rep;
  rep.mode = "fleet";
  rep.speed = o_.replay.speed;
  rep.clock = util::clock_name(util::clock_kind(o_.replay.virtual_clock));
  rep.trace = report::trace_info(*reader_);
  // A replayed plan describes the routing its saving run did (the same, by its key).
  if (!self_routing_)
    rep.plan = saved_routes_ ? saved_routes_->meta()["plan"] : nlohmann::json(router_->plan_json());
  uint64_t records_sent = 0;
  std::vector<wire::NodeResult> nodes;
  for (auto& l : links_) {
    records_sent += l->counters().records_sent;
    std::optional<wire::NodeResult> result = l->take_result();
    wire::NodeResult node = result ? std::move(*result) : lost_node(*l, !self_routing_);
    node.address = l->address().name();
    node.records_received = l->counters().records_sent;
    node.clock_offset_ns = l->clock_offset_ns();
    node.clock_uncertainty_ns = l->clock_uncertainty_ns();
    if (aborted_ && node.status == wire::NodeStatus::Ok) node.status = wire::NodeStatus::Aborted;
    if (cut_edges_ && node.pacing) {
      node.pacing->edges.cut = cut_edges_->cut_of(nodes.size());
      node.pacing->cut_counted = true;
    }
    nodes.push_back(std::move(node));
  }
  if (self_routing_) settle_self_routed_plan(nodes, rep);
  note_who_routed(rep.plan, !self_routing_ ? "coordinator"
                            : plan_read_   ? "worker (saved plan)"
                                           : "worker");
  report::add_nodes(rep, std::move(nodes));
  if (aborted_) rep.stopped_early = true;
  rep.accounting = record_accounting(rep);
  auto& c = rep.extra["coordinator"];
  c = coordinator_usage(static_cast<double>(clock_.now_ns() - t0_ns_) / 1e9, records_sent);
  // Where the coordinator's wall time went (writing the outputs comes after and is not here).
  auto secs = [](int64_t a, int64_t b) { return static_cast<double>(b - a) / 1e9; };
  c["phase_s"] = {{"connect", secs(began_ns_, connected_ns_)},       // workers, handshake, clocks
                  {"stream", secs(connected_ns_, streamed_ns_)},     // readiness, routing
                  {"collect", secs(streamed_ns_, collected_ns_)},    // last batches, every DONE
                  {"merge", secs(collected_ns_, clock_.now_ns())}};  // the nodes' results
  c["during_replay"] = replay_cpu_json();
  add_batch_costs(c, links_, fanout_ != nullptr);
  // The control thread (this one: the socket, handshake, heartbeats, credit, the merge) and the
  // routing thread apart (docs/scaling.md, "Routing on its own thread"); null: no routing thread.
  c["thread_cpu_s"] = {
      {"control", util::thread_cpu_s()},
      {"routing", routing_cpu_s_ < 0 ? nlohmann::json(nullptr) : nlohmann::json(routing_cpu_s_)}};
  // T0 on this host's CLOCK_MONOTONIC: the variants of a --sweep compare theirs.
  c["t0_mono_ns"] = clock_.is_virtual() ? 0 : t0_ns_;
  // What T0 waited for (null: the run ended before every worker was ready).
  c["start"] = t0_ ? t0_->to_json(connected_ns_) : nlohmann::json(nullptr);
  if (!o_.route_cache_dir.empty()) c["route_plan"] = route_plan_json();
  if (o_.replay.miss_baseline_events) pair_with_baseline(rep, *o_.replay.miss_baseline_events);
  const Result<ExitCode> outputs_status = report::write_outputs(rep, o_.replay.output);
  if (!outputs_status) return fail(outputs_status.status());  // the output dir became unwritable
  if (local_) local_->stop(unresponsive_links(links_));
  return final_status(outputs_status.value());
}

// From the replay's start (T0; GO on a virtual clock) to the last result: what the coordinator
// costs while the workers replay (issue 41's goal); the phases before it (plan, connect) and after
// it (merge, outputs) are fixed costs. Null when the run never started.
nlohmann::json FleetRun::replay_cpu_json() const {
  const int64_t start_ns = go_real_ns_ + go_lead_ns_;
  if (go_cpu_s_ < 0 || collected_cpu_s_ < 0 || collected_real_ns_ <= start_ns) return nullptr;
  const double wall_s = static_cast<double>(collected_real_ns_ - start_ns) / 1e9;
  const double cpu_s = collected_cpu_s_ - go_cpu_s_;
  return {{"wall_s", wall_s}, {"cpu_s", cpu_s}, {"share_of_core", cpu_s / wall_s}};
}

// Where every record of the trace went (docs/outputs.md § Record accounting). A run cut short
// has not read the rest of the trace: it is counted here by a frame scan, after the report's
// trace section was taken (so that section describes what the run read, as before).
nlohmann::ordered_json FleetRun::record_accounting(const report::RunReport& rep) {
  report::AccountingInput in;
  in.shard = o_.router.mode;
  std::vector<uint64_t> routed, parts;
  uint64_t split_calls = 0;
  if (self_plan_) {
    self_routed_accounting(in, routed, parts, split_calls);
  } else if (saved_routes_) {  // what the replayed plan routed so far; the trace's count is saved
    in.records_routed = saved_tally_.records;
    in.trace_records = saved_routes_->meta()["records_read"].get<uint64_t>();
    routed = saved_tally_.rows;
    parts = saved_tally_.split_parts;
    split_calls = saved_tally_.split_calls;
  } else {
    in.records_routed = router_->records();
    uint64_t read = reader_->counters().records;
    if (have_record_) {  // read, but the run stopped before routing it
      try {
        trace::check_deferred_args(rec_);
      } catch (const trace::MalformedRecord&) {
        --read;
      }
    }
    const report::RemainingRecords rest = report::count_remaining_records(*reader_);
    in.trace_records = read + rest.records;
    in.remainder_error = rest.error;
    for (const plan::WorkerPlan& row : router_->plan()) {
      routed.push_back(row.records);
      parts.push_back(row.split_parts);
    }
    split_calls = router_->split_calls();
  }
  uint64_t split_parts = 0;
  for (size_t i = 0; i < links_.size(); ++i) {
    const WorkerLink& l = links_[i];
    report::NodeDelivery d;
    d.routed = i < routed.size() ? routed[i] : 0;
    split_parts += i < parts.size() ? parts[i] : 0;
    d.sent = self_plan_ ? self_kept_[i] : l.counters().records_sent;
    // A worker that routed itself confirms by PROGRESS counts alone: nothing was sent to it.
    d.confirmed = self_plan_ ? static_cast<uint64_t>(std::max<int64_t>(0, l.progress().records))
                             : l.counters().records_confirmed;
    d.lost = rep.nodes[i].status == wire::NodeStatus::Lost;
    if (d.lost) {
      d.reason = "lost: " + l.lost_reason();
    } else if (rep.nodes[i].status == wire::NodeStatus::Aborted) {
      d.reason = "stopped: " + (abort_reason_.empty() ? std::string("aborted") : abort_reason_);
    }
    in.nodes.push_back(std::move(d));
  }
  in.split_extra_parts = split_parts - std::min(split_parts, split_calls);
  nlohmann::ordered_json a = report::accounting_json(rep, in);
  if (!a["balanced"].get<bool>())
    spdlog::error("record accounting does not balance (a bug): {}", a.dump());
  return a;
}

ExitCode FleetRun::final_status(ExitCode outputs_status) const {
  if (interrupted()) return ExitCode::kInterrupted;
  if (!self_plan_error_.empty()) {
    spdlog::error("run stopped: the workers' plans disagree: {} (exit 2)", self_plan_error_);
    return ExitCode::kBadInput;
  }
  for (const auto& l : links_) {
    if (l->abort_kind() == wire::AbortKind::Config) {
      spdlog::error("run stopped: worker {} refused the engine config (exit 2)",
                    l->address().name());
      return ExitCode::kBadInput;
    }
    if (l->abort_kind() == wire::AbortKind::Policy) {
      spdlog::error(
          "run stopped: worker {} does not allow what the run asks for (its operator's policy; "
          "the reason is above; exit 2)",
          l->address().name());
      return ExitCode::kBadInput;
    }
    if (l->abort_kind() == wire::AbortKind::Trace) {
      spdlog::error(
          "run stopped: worker {} could not read the run's records from its copy of "
          "the trace (its reason is above; exit 2; --trace-access stream sends the "
          "records instead)",
          l->address().name());
      return ExitCode::kBadInput;
    }
    if (l->abort_kind() == wire::AbortKind::Protocol) {
      spdlog::error(
          "run stopped: worker {} received a damaged or incomplete batch stream (or a "
          "message it cannot act on), so it could not replay every record sent to it (its "
          "reason is above; exit 2)",
          l->address().name());
      return ExitCode::kBadInput;
    }
  }
  bool lost = false;
  for (const auto& l : links_) lost = lost || l->state() != WorkerLink::State::Done;
  if (lost || aborted_) {
    spdlog::error("run incomplete: {}",
                  abort_reason_.empty() ? "a worker was lost" : abort_reason_);
    return ExitCode::kRunIncomplete;
  }
  return outputs_status;
}

}  // namespace fleet::session
