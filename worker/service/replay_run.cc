#include "replay_run.h"

#include <algorithm>

#include "fleet/causal/pacing.h"
#include "fleet/engine/engine_factory.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/clock.h"
#include "fleet/wire/node_result.h"
#include "plan_share_source.h"
#include "self_routed_source.h"

namespace fleet::service {

ReplayRun::ReplayRun(RunSetup setup) : setup_(std::move(setup)) {
  if (setup_.virtual_clock)
    vclock_ = std::make_unique<util::VirtualClock>(setup_.real_clock->now_ns());
  // Local workers share the coordinator's terminal: their L2 failure lines say whose they are.
  setup_.session.log_prefix = "worker " + setup_.node_name + ": ";
  setup_.session.on_window = [this](const stats::RunWindow& w) {
    std::lock_guard<std::mutex> lock(mu_);
    windows_.push_back(w);
  };
  thread_ = std::thread([this] { run_thread(); });
}

ReplayRun::~ReplayRun() {
  request_stop();
  if (thread_.joinable()) thread_.join();
}

void ReplayRun::run_thread() {
  util::Clock& clock = vclock_ ? *vclock_ : *setup_.real_clock;
  const int64_t began_ns = setup_.real_clock->now_ns();
  if (setup_.l2) return run_l2(clock, began_ns);
  if (setup_.self_route && !open_self_routed_source()) return;
  if (Status s = setup_.engine.validate(); !s) {
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.engine_error = "worker " + setup_.node_name + ": engine: " + s.message();
    return;
  }
  Result<std::unique_ptr<engine::Engine>> built = storage::make_engine(setup_.engine, clock);
  if (!built) {  // an L2 that cannot be built (a directory, refused credentials): the run's end
    std::lock_guard<std::mutex> lock(mu_);
    outcome_.engine_error = "worker " + setup_.node_name + ": engine: " + built.status().message();
    return;
  }
  engine_ = std::move(built).value();
  engine_build_ns_.store(setup_.real_clock->now_ns() - began_ns);
  queue_.wake_network();  // READY goes now, not at the next poll timeout
  wait_for_go();          // or a stop: the session below is then stopped before it starts
  // Virtual time is the run's own: it starts where the engine was built, whatever GO said.
  if (vclock_) setup_.session.t0_ns = vclock_->now_ns();
  session_ = std::make_unique<replay::ReplaySession>(*engine_, clock, setup_.session);
  {
    // Under the lock request_stop() takes: a stop that came after GO but before the session
    // existed must reach it too (the queue's abort alone would leave the session waiting for
    // a T0 that may be seconds away).
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_requested_) session_->request_stop();  // stopped first: a partial DONE
    session_ready_.store(true);
  }
  finish(session_->run(self_source_ ? static_cast<replay::RecordSource&>(*self_source_)
                                    : static_cast<replay::RecordSource&>(queue_)));
}

bool ReplayRun::open_self_routed_source() {
  const RunSetup::SelfRoute& r = *setup_.self_route;
  Result<std::unique_ptr<ShareSource>> opened =
      Status::error("this worker mapped no trace at HELLO");
  std::string what = "self-routing: ";
  if (!r.plan_path.empty()) {
    what = "self-routing: route plan: ";
    auto plan = PlanShareSource::open(r.plan_path, r.plan_key, setup_.trace, r.node_index,
                                      r.node_count, r.max_frame_bytes);
    if (plan)
      opened = std::unique_ptr<ShareSource>(std::move(plan).value());
    else
      opened = plan.status();
  } else if (setup_.trace) {
    auto routed = SelfRoutedSource::open(setup_.trace->path(), r.router, r.node_index,
                                         r.max_frame_bytes, r.read_ahead);
    if (routed) {
      const replay::SessionOptions& so = setup_.session;
      if (r.router.mode == plan::ShardMode::Time && causal::tracks_edges(so.pacing, so.speed))
        routed.value()->count_cut_edges(so.edge_ttl, r.router.worker_names.size());
      opened = std::unique_ptr<ShareSource>(std::move(routed).value());
    } else {
      opened = routed.status();
    }
  }
  if (opened) {
    self_source_ = std::move(opened).value();
    self_source_view_.store(self_source_.get());
    return true;
  }
  std::lock_guard<std::mutex> lock(mu_);
  outcome_.trace_error = "worker " + setup_.node_name + ": " + what + opened.status().message();
  return false;
}

void ReplayRun::finish(replay::SessionResult res) {
  wire::NodeResult node = replay::to_node_result(std::move(res), setup_.node_name);
  node.records_received = records_received_.load();
  std::string trace_error;
  if (self_source_) {
    node.self_route = self_source_->report();
    node.records_received = node.self_route["kept"].get<uint64_t>();
    if (node.pacing) self_source_->cut_edges_into(*node.pacing);
    if (!self_source_->problem().empty())
      trace_error = "worker " + setup_.node_name + ": self-routing: " + self_source_->problem();
  }
  util::HugeString payload = wire::encode_done_message(node);
  std::lock_guard<std::mutex> lock(mu_);
  if (!trace_error.empty()) {
    outcome_.trace_error = std::move(trace_error);
  } else {
    outcome_.done = std::move(payload);
  }
}

void ReplayRun::wait_for_go() {
  std::unique_lock<std::mutex> lock(mu_);
  go_cv_.wait(lock, [&] { return go_t0_ns_.has_value() || stop_requested_; });
  if (!stop_requested_) setup_.session.t0_ns = *go_t0_ns_;
}

std::optional<int64_t> ReplayRun::take_ready() {
  const int64_t build = engine_build_ns_.load();
  if (ready_taken_ || build < 0) return std::nullopt;
  ready_taken_ = true;
  return build;
}

void ReplayRun::start(int64_t t0_ns) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (go_t0_ns_) return;
    go_t0_ns_ = t0_ns;
  }
  go_cv_.notify_all();
}

uint64_t ReplayRun::take_credit() {
  const uint64_t consumed = queue_.consumed_batches();
  const uint64_t due = consumed > credits_sent_ ? consumed - credits_sent_ : 0;
  credits_sent_ = consumed;
  return due;
}

std::optional<wire::Progress> ReplayRun::progress() {
  if (setup_.l2) return l2_progress();
  if (!session_ready_.load()) return std::nullopt;
  const auto& p = session_->progress();
  wire::Progress pr;
  {
    // At most kWindowsPerProgress a message: the coordinator's decoder refuses arrays over 64 Ki
    // entries, and a message that does not decode would lose its windows and its count.
    std::lock_guard<std::mutex> lock(mu_);
    const size_t n = std::min(windows_.size(), kWindowsPerProgress);
    pr.windows.assign(windows_.begin(), windows_.begin() + static_cast<std::ptrdiff_t>(n));
    windows_.erase(windows_.begin(), windows_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  pr.records = static_cast<int64_t>(p.records.load(std::memory_order_relaxed));
  pr.failed = static_cast<int64_t>(p.failed.load(std::memory_order_relaxed));
  pr.last_lateness_ns = p.last_lateness_ns.load(std::memory_order_relaxed);
  pr.trace_time_s = p.trace_time_s.load(std::memory_order_relaxed);
  if (const ShareSource* src = self_source_view_.load())
    pr.read_fraction = src->progress_fraction();
  return pr;
}

void ReplayRun::request_stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
    l2_stop_.store(true);
    if (session_ready_.load()) session_->request_stop();
  }
  go_cv_.notify_all();
  queue_.abort();
}

bool ReplayRun::windows_pending() {
  std::lock_guard<std::mutex> lock(mu_);
  return !windows_.empty();
}

ReplayRun::Outcome ReplayRun::take_outcome() {
  std::lock_guard<std::mutex> lock(mu_);
  Outcome out = std::move(outcome_);
  outcome_ = {};
  return out;
}

}  // namespace fleet::service
