#include "fleet/l2replay/l2_replayer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "fleet/l2replay/l2_timeline.h"
#include "fleet/l2replay/l2_timeline_json.h"
#include "fleet/l2replay/ready_queue.h"

namespace fleet::l2replay {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr double kNsPerS = 1e9;

// 32 bytes: the loop reads an op's state when it dispatches it, completes it and unblocks its
// dependents, at random places of an array of one entry per operation.
struct OpState {
  int64_t target = 0;
  int64_t deps_done_at = 0;  // latest completion among the dependencies
  int64_t dispatched = -1;
  uint32_t pending_deps = 0;
};

// Which operations have completed, a bit each: every dispatch checks its dependencies here, in
// an array small enough to stay in cache (49 KB for 400,000 operations), where a check of each
// dependency's state was a cache miss.
class DoneBits {
 public:
  explicit DoneBits(size_t n) : words_((n + 63) / 64, 0) {}
  void set(uint32_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool test(uint32_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }

 private:
  std::vector<uint64_t> words_;
};

// Whether the set positions of `bitmap`, in order, are exactly `indices` (no list built).
bool same_indices(const std::vector<uint8_t>& bitmap, std::span<const int64_t> indices) {
  size_t next = 0;
  for (size_t i = 0; i < bitmap.size(); ++i) {
    if (!bitmap[i]) continue;
    if (next == indices.size() || indices[next] != static_cast<int64_t>(i)) return false;
    ++next;
  }
  return next == indices.size();
}

// Adapter task id -> op for the tasks in flight. Adapters count their task ids up from 0 (the
// mock, fs and resp do), so ids below a bound that grows with the tasks put index a vector;
// anything else goes to a hash map, with the same answers.
class InFlight {
 public:
  void put(uint64_t task, uint32_t op) {
    ++puts_;
    ++size_;
    if (dense_ok(task)) {
      if (task >= by_task_.size())
        by_task_.resize(std::max<size_t>(task + 1, by_task_.size() * 2), kNone);
      by_task_[task] = op;
    } else {
      sparse_[task] = op;
    }
  }
  // The op of `task`, removed; nullopt for a task not in flight.
  std::optional<uint32_t> take(uint64_t task) {
    if (task < by_task_.size() && by_task_[task] != kNone) {
      --size_;
      return std::exchange(by_task_[task], kNone);
    }
    auto it = sparse_.find(task);
    if (it == sparse_.end()) return std::nullopt;
    const uint32_t op = it->second;
    sparse_.erase(it);
    --size_;
    return op;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  bool dense_ok(uint64_t task) const { return task < 4 * puts_ + 65536; }
  std::vector<uint32_t> by_task_;
  std::unordered_map<uint64_t, uint32_t> sparse_;
  uint64_t puts_ = 0;
  size_t size_ = 0;
};

class Replay {
 public:
  Replay(L2Plan& plan, L2Target& target, const L2ReplayOptions& o)
      : plan_(plan),
        target_(target),
        adapter_(target.adapter()),
        clock_(target.clock()),
        o_(o),
        completed_(plan.ops.size()) {
    result_.adapter_name = target.name();
    result_.speed = o.speed;
    result_.operations_total = plan.ops.size();
    state_.resize(plan.ops.size());
    link_dependents();
    adapter_.bind_key_table(plan.keys);
  }

  Result<L2ReplayResult> run() {
    std::future<std::string> digest;
    if (o_.digest_plan)
      digest = std::async(std::launch::async, [this] { return plan_sha256(plan_); });
    start_ = clock_.now_ns();
    timeline_.emplace(start_);
    schedule();
    if (o_.live) {
      o_.live->total.store(plan_.ops.size(), std::memory_order_relaxed);
      o_.live->started.store(true);
    }
    last_progress_ = start_;
    next_log_ = start_ + static_cast<int64_t>(o_.progress_every_s * kNsPerS);
    while (!finished()) {
      if (o_.stop && o_.stop->load(std::memory_order_relaxed)) {
        result_.interrupted = true;
        break;
      }
      bool moved = dispatch_due();
      moved |= take_completions();
      const int64_t now = clock_.now_ns();
      if (moved) last_progress_ = now;
      if (moved) publish();
      log_progress(now);
      if (!moved && !idle(now)) return stalled();  // `digest` joins as it goes
    }
    const int64_t end = clock_.now_ns();
    if (digest.valid()) result_.plan_sha256 = digest.get();
    result_.total_replay_seconds = seconds(end);
    result_.in_flight_at_end = in_flight_.size();
    result_.timeline = timeline_->finish();
    publish();
    return std::move(result_);
  }

 private:
  void publish() {
    if (!o_.live) return;
    L2LiveProgress& l = *o_.live;
    l.dispatched.store(dispatched_, std::memory_order_relaxed);
    l.finished.store(finished_, std::memory_order_relaxed);
    l.failed.store(result_.of(L2Op::Store).failed, std::memory_order_relaxed);
    l.last_lag_ns.store(last_lag_ns_, std::memory_order_relaxed);
    l.trace_time_s.store(last_trace_s_, std::memory_order_relaxed);
  }

  double seconds(int64_t t) const { return static_cast<double>(t - start_) / kNsPerS; }
  bool finished() const { return dispatched_ == plan_.ops.size() && in_flight_.empty(); }

  // CSR lists of who waits for each operation.
  void link_dependents() {
    offsets_.assign(plan_.ops.size() + 1, 0);
    for (const L2PlanOp& op : plan_.ops)
      for (uint32_t d : plan_.deps(op)) ++offsets_[d + 1];
    for (size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
    dependents_.resize(offsets_.back());
    std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
    for (uint32_t i = 0; i < plan_.ops.size(); ++i) {
      state_[i].pending_deps = plan_.ops[i].deps.n;
      for (uint32_t d : plan_.deps(plan_.ops[i])) dependents_[fill[d]++] = i;
    }
  }

  // Scaled targets; everything without dependencies is ready at once.
  void schedule() {
    origin_ = std::isnan(o_.origin_t_mono) ? plan_.origin_t_mono() : o_.origin_t_mono;
    const double origin = origin_;
    std::vector<detail::ReadyQueue::Entry> initial;
    for (uint32_t i = 0; i < plan_.ops.size(); ++i) {
      OpState& s = state_[i];
      const double offset = o_.speed > 0 ? (plan_.ops[i].t_mono - origin) / o_.speed : 0.0;
      s.target = start_ + static_cast<int64_t>(std::llround(offset * kNsPerS));
      s.deps_done_at = s.target;
      if (s.pending_deps == 0) initial.emplace_back(s.target, i);
    }
    ready_.set_initial(std::move(initial));
  }

  // At most kBatch per pass, so completions (and what they unblock) are taken between batches.
  bool dispatch_due() {
    constexpr int kBatch = 256;
    bool any = false;
    for (int n = 0; n < kBatch && !ready_.empty(); ++n) {
      const auto [at, i] = ready_.top();
      const int64_t now = clock_.now_ns();
      if (at > now) break;
      ready_.pop();
      prefetch_upcoming();
      dispatch(i, now);
      any = true;
    }
    return any;
  }

  // The cache misses of the operations about to go out, taken ahead: an op and its state 16
  // dispatches before it, its key ids, sizes and dependencies 8 before (its op arrived meanwhile).
  void prefetch_upcoming() {
    if (const uint32_t j = ready_.ahead(16); j != detail::ReadyQueue::kNoOp) {
      const char* op = reinterpret_cast<const char*>(&plan_.ops[j]);
      __builtin_prefetch(op);
      __builtin_prefetch(op + sizeof(L2PlanOp) - 1);
      __builtin_prefetch(&state_[j]);
    }
    if (const uint32_t j = ready_.ahead(8); j != detail::ReadyQueue::kNoOp) {
      const L2PlanOp& op = plan_.ops[j];
      __builtin_prefetch(plan_.key_id_pool.data() + op.keys.at);
      __builtin_prefetch(plan_.dep_pool.data() + op.deps.at);
      __builtin_prefetch(plan_.size_pool.data() + op.sizes.at);
    }
  }

  void account_dispatch(uint32_t i, int64_t now) {
    OpState& s = state_[i];
    const L2PlanOp& op = plan_.ops[i];
    L2OpResult& r = result_.of(op.op);
    for (uint32_t d : plan_.deps(op)) result_.dependency_violations += !completed_.test(d);
    const int64_t ready_at = std::max(s.target, s.deps_done_at);
    r.schedule_lag.add(static_cast<double>(std::max<int64_t>(0, now - s.target)) / kNsPerS);
    r.dependency_wait.add(static_cast<double>(ready_at - s.target) / kNsPerS);
    r.loop_wait.add(static_cast<double>(std::max<int64_t>(0, now - ready_at)) / kNsPerS);
    last_lag_ns_ = std::max<int64_t>(0, now - s.target);
    last_trace_s_ = op.t_mono - origin_;
    timeline_->dispatched(op.op, now, last_lag_ns_);
    ++r.submitted;
    s.dispatched = now;
    if (dispatched_++ == 0) result_.first_dispatch_s = seconds(now);
    result_.last_dispatch_s = seconds(now);
  }

  void dispatch(uint32_t i, int64_t now) {
    account_dispatch(i, now);
    const L2PlanOp& op = plan_.ops[i];
    L2OpResult& r = result_.of(op.op);
    // Keys by their plan id (bound in the constructor): no ObjectKey copied for the mock.
    const std::span<const uint32_t> ids = plan_.key_ids(op);
    switch (op.op) {
      case L2Op::Store:
        r.bytes_submitted += plan_.bytes(op);
        in_flight_.put(adapter_.submit_store_ids(ids, plan_.sizes(op)), i);
        break;
      case L2Op::LookupTask:
        in_flight_.put(adapter_.submit_lookup_and_lock_ids(ids), i);
        break;
      case L2Op::LoadTask:
        r.bytes_submitted += plan_.bytes(op);
        in_flight_.put(adapter_.submit_load_ids(ids, plan_.sizes(op)), i);
        break;
      case L2Op::Unlock:
        adapter_.submit_unlock_ids(ids);
        finish(i, now);
        break;
      default:  // delete: the target's only adapter, whatever the recorded index (-1)
        adapter_.delete_ids(ids);
        finish(i, now);
        break;
    }
  }

  bool take_completions() {
    done_.clear();
    const int64_t now = clock_.now_ns();
    target_.take_due(now, done_);
    for (storage::L2Completion& c : done_) complete(c, now);
    return !done_.empty();
  }

  void complete(const storage::L2Completion& c, int64_t now) {
    const std::optional<uint32_t> taken = in_flight_.take(c.task_id);
    if (!taken) {
      ++result_.unmatched_completions;
      return;
    }
    const uint32_t i = *taken;
    const L2PlanOp& op = plan_.ops[i];
    L2OpResult& r = result_.of(op.op);
    ++r.completed;
    r.failed += op.op == L2Op::Store && !c.success;
    r.bytes_moved += c.bytes;
    r.latency.record_success(static_cast<double>(now - state_[i].dispatched) / 1e6);
    timeline_->completed(op.op, now, now - state_[i].dispatched, c.bytes,
                         op.op == L2Op::Store && !c.success);
    compare_outcome(op, c, r);
    finish(i, now);
  }

  void compare_outcome(const L2PlanOp& op, const storage::L2Completion& c, L2OpResult& r) {
    ++r.outcome_comparisons;
    const bool same = op.op == L2Op::Store
                          ? c.success == (op.source_completed && op.source_succeeded)
                          : same_indices(c.bitmap, plan_.source_indices(op));
    if (same) return;
    ++r.outcome_mismatches;
    if (result_.mismatch_samples.size() < 10) {
      const std::string name(trace::l2_op_name(op.op));
      result_.mismatch_samples.push_back(name + ":('" + name + "', " +
                                         std::to_string(op.adapter_index) + ", " +
                                         std::to_string(op.task_id) + ")");
    }
  }

  void finish(uint32_t i, int64_t now) {
    completed_.set(i);
    ++finished_;
    for (uint32_t k = offsets_[i]; k < offsets_[i + 1]; ++k) {
      OpState& d = state_[dependents_[k]];
      d.deps_done_at = std::max(d.deps_done_at, now);
      if (--d.pending_deps == 0) ready_.push(std::max(d.target, now), dependents_[k]);
    }
  }

  Status stalled() const {
    return Status::error("L2 replay made no progress for " + std::to_string(o_.drain_timeout_s) +
                         " s (" + std::to_string(in_flight_.size()) + " task(s) in flight, " +
                         std::to_string(plan_.ops.size() - dispatched_) +
                         " operation(s) not issued)");
  }

  // Waits for the next due operation or completion; false once nothing moved for the drain
  // timeout.
  bool idle(int64_t now) {
    if (now - last_progress_ > static_cast<int64_t>(o_.drain_timeout_s * kNsPerS)) return false;
    int64_t until = ready_.empty() ? kNever : ready_.top().first;
    if (until == kNever)
      until = last_progress_ + static_cast<int64_t>(o_.drain_timeout_s * kNsPerS) + 1;
    target_.wait(until);
    return true;
  }

  void log_progress(int64_t now) {
    if (o_.progress_every_s <= 0 || now < next_log_) return;
    next_log_ = now + static_cast<int64_t>(o_.progress_every_s * kNsPerS);
    uint64_t completed = 0, bytes = 0;
    for (const L2OpResult& r : result_.ops) completed += r.completed, bytes += r.bytes_submitted;
    spdlog::info(
        "L2 replay progress: elapsed={:.1f}s dispatched={}/{} completed={} pending={} "
        "in_flight={} bytes_submitted={}",
        seconds(now), dispatched_, plan_.ops.size(), completed, plan_.ops.size() - dispatched_,
        in_flight_.size(), bytes);
  }

  L2Plan& plan_;
  L2Target& target_;
  storage::L2Adapter& adapter_;
  util::Clock& clock_;
  L2ReplayOptions o_;
  L2ReplayResult result_;
  std::optional<L2TimelineSampler> timeline_;  // from the loop's start
  std::vector<OpState> state_;
  DoneBits completed_;
  std::vector<uint32_t> offsets_;
  std::vector<uint32_t> dependents_;
  detail::ReadyQueue ready_;
  InFlight in_flight_;
  std::vector<storage::L2Completion> done_;
  uint64_t dispatched_ = 0;
  uint64_t finished_ = 0;
  int64_t last_lag_ns_ = 0;
  double last_trace_s_ = 0.0;
  double origin_ = 0.0;
  int64_t start_ = 0;
  int64_t last_progress_ = 0;
  int64_t next_log_ = 0;
};

}  // namespace

uint64_t L2ReplayResult::dispatched() const {
  uint64_t n = 0;
  for (const L2OpResult& r : ops) n += r.submitted;
  return n;
}

uint64_t L2ReplayResult::mismatches() const {
  uint64_t n = 0;
  for (const L2OpResult& r : ops) n += r.outcome_mismatches;
  return n;
}

uint64_t L2ReplayResult::comparisons() const {
  uint64_t n = 0;
  for (const L2OpResult& r : ops) n += r.outcome_comparisons;
  return n;
}

Result<L2ReplayResult> replay_l2_plan(L2Plan& plan, L2Target& target,
                                      const L2ReplayOptions& options) {
  return Replay(plan, target, options).run();
}

}  // namespace fleet::l2replay
