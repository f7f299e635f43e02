// A worker's L2 replay (docs/l2-traces.md, "Across the fleet"): the same thread and the same
// READY / GO / DONE hand-over as a storage run (replay_run.cc), with l2replay's plan, share and
// replayer in place of the engine and the session.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "fleet/l2replay/l2_fleet_prepare.h"
#include "fleet/l2replay/l2_fleet_result.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_replayer.h"
#include "fleet/l2replay/l2_target.h"
#include "fleet/util/clock.h"
#include "fleet/wire/node_result.h"
#include "replay_run.h"

namespace fleet::service {

namespace {

// Under --shard source with several files, what the files this node does not replay want
// seeded: an object two recorded servers found is seeded once, by the earliest lookup's node
// (l2_fleet_prepare.h), so each node plans every file for its prepared objects.
Result<std::vector<l2replay::L2PrepareClaim>> other_files_claims(const RunSetup::L2& l2,
                                                                 const std::vector<size_t>& read) {
  std::vector<l2replay::L2PrepareClaim> claims;
  if (!l2.prepare || l2.share.shard != l2replay::L2Shard::Source) return claims;
  for (size_t f = 0; f < l2.paths.size(); ++f) {
    if (std::find(read.begin(), read.end(), f) != read.end()) continue;
    Result<l2replay::L2Plan> plan = l2replay::build_l2_plan(l2.paths[f], l2.plan);
    if (!plan) return plan.status();
    const int node = static_cast<int>(f % static_cast<size_t>(l2.share.node_count));
    auto mine = l2replay::l2_prepare_claims(plan.value(), f, l2.shift_s[f],
                                            std::vector<int>(plan->ops.size(), node));
    claims.insert(claims.end(), mine.begin(), mine.end());
  }
  return claims;
}

// This node's share of the files, or why it cannot be had (the message names the file).
Result<l2replay::L2Share> plan_share(const RunSetup::L2& l2) {
  const std::vector<size_t> read = l2replay::l2_files_of_node(l2.paths.size(), l2.share);
  std::vector<l2replay::L2Plan> plans;
  for (size_t f : read) {  // unreadable, not level l2, one of the fork's refusals
    Result<l2replay::L2Plan> plan = l2replay::build_l2_plan(l2.paths[f], l2.plan);
    if (!plan) return plan.status();
    plans.push_back(std::move(plan).value());
  }
  Result<std::vector<l2replay::L2PrepareClaim>> others = other_files_claims(l2, read);
  if (!others) return others.status();
  return l2replay::build_l2_share(std::move(plans), read, l2.shift_s, l2.share,
                                  std::move(others).value());
}

wire::NodeResult node_result(const std::string& name, const l2replay::L2ReplayResult& r,
                             const l2replay::L2ShareFigures& share,
                             const std::optional<l2replay::L2PrepareResult>& prepare) {
  wire::NodeResult node;
  node.name = name;
  node.status = r.interrupted ? wire::NodeStatus::Aborted : wire::NodeStatus::Ok;
  node.total = share.operations_kept;
  node.replayed = r.dispatched();
  node.duration_s = r.total_replay_seconds;
  node.engine_name = "l2:" + r.adapter_name;
  node.l2_replay = l2replay::l2_result_json(r, share, prepare);
  l2replay::put_l2_latencies(r, node.stats);
  return node;
}

}  // namespace

void ReplayRun::run_l2(util::Clock& clock, int64_t began_ns) {
  const RunSetup::L2& l2 = *setup_.l2;
  const std::string who = "worker " + setup_.node_name + ": ";
  Result<l2replay::L2Share> share = plan_share(l2);
  if (!share) {
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.trace_error = who + "L2 trace: " + share.status().message();
    return;
  }
  // No adapter, or one that cannot be built or reached.
  Result<std::unique_ptr<l2replay::L2Target>> made =
      l2replay::L2Target::create(setup_.engine, clock);
  if (!made) {
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.engine_error = who + "L2 adapter: " + made.status().message();
    return;
  }
  std::unique_ptr<l2replay::L2Target> target = std::move(made).value();
  // Seeding happens before READY: T0 waits for the slowest node's (the coordinator waits for
  // READY as long as the worker heartbeats; prepare_l2 gives up after the drain timeout).
  std::optional<l2replay::L2PrepareResult> prepared;
  if (l2.prepare) {
    Result<l2replay::L2PrepareResult> p =
        l2replay::prepare_l2(share.value().plan, *target, l2.drain_timeout_s);
    if (!p) {
      std::lock_guard<std::mutex> lock(mu_);
      outcome_.engine_error = who + "L2 prepare: " + p.status().message();
      return;
    }
    prepared = p.value();
    spdlog::info("{}L2 prepare: {} objects, {} bytes, {:.3f} s", who, prepared->prepared_objects,
                 prepared->prepared_bytes, prepared->elapsed_seconds);
  }
  engine_build_ns_.store(setup_.real_clock->now_ns() - began_ns);
  queue_.wake_network();  // READY
  wait_for_go();
  if (l2.prepare_only) {  // seeded: nothing to replay, the DONE says what was seeded
    l2replay::L2ReplayResult none;
    none.adapter_name = target->name();
    none.speed = l2.speed;
    target.reset();
    util::HugeString payload = wire::encode_done_message(
        node_result(setup_.node_name, none, share.value().figures, prepared));
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.done = std::move(payload);
    return;
  }
  // The replay's loop starts at T0: every node's operations keep one timeline. Virtual time is
  // the run's own and starts at once.
  if (!vclock_) clock.sleep_until(setup_.session.t0_ns);
  l2replay::L2ReplayOptions ro;
  ro.speed = l2.speed;
  ro.drain_timeout_s = l2.drain_timeout_s;
  ro.progress_every_s = 0;  // the coordinator shows progress; a node's line would repeat N times
  ro.stop = &l2_stop_;
  ro.origin_t_mono = 0.0;  // the aligned timeline's origin: the earliest file's first record
  ro.live = &l2_live_;
  const Result<l2replay::L2ReplayResult> r =
      l2replay::replay_l2_plan(share.value().plan, *target, ro);
  if (!r) {  // the target stopped completing (--drain-timeout)
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.engine_error = who + "L2 adapter: " + r.status().message();
    return;
  }
  target.reset();  // closes the adapter before the result goes out
  util::HugeString payload = wire::encode_done_message(
      node_result(setup_.node_name, r.value(), share.value().figures, prepared));
  std::lock_guard<std::mutex> lock(mu_);
  outcome_.done = std::move(payload);
}

// PROGRESS of an L2 replay, in the storage run's fields: `records` the operations issued,
// `failed` the failed stores, the latest dispatch's schedule lag and aligned trace time, and
// `read_fraction` the share of this node's operations finished (the coordinator's line shows
// the slowest node's, as for workers that route themselves). Nothing until the loop runs.
std::optional<wire::Progress> ReplayRun::l2_progress() const {
  const l2replay::L2LiveProgress& l = l2_live_;
  if (!l.started.load()) return std::nullopt;
  wire::Progress pr;
  pr.records = static_cast<int64_t>(l.dispatched.load(std::memory_order_relaxed));
  pr.failed = static_cast<int64_t>(l.failed.load(std::memory_order_relaxed));
  pr.last_lateness_ns = l.last_lag_ns.load(std::memory_order_relaxed);
  pr.trace_time_s = l.trace_time_s.load(std::memory_order_relaxed);
  const uint64_t total = l.total.load(std::memory_order_relaxed);
  pr.read_fraction =
      total ? static_cast<double>(l.finished.load(std::memory_order_relaxed)) / total : 1.0;
  return pr;
}

}  // namespace fleet::service
