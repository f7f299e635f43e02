#include "fleet/engine/storage_manager.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "fleet/engine/eviction_policy.h"
#include "fleet/engine/key_hash.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/engine/l2_eviction.h"
#include "fleet/engine/prefetch_controller.h"
#include "fleet/engine/store_controller.h"

namespace fleet::storage {

namespace {
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
// The driver wakes at least this often even when nothing is scheduled.
constexpr int64_t kDriverMaxSleepNs = 100'000'000;

// A duration of the engine's own time at `scale` times the wall's pace (at least 1).
int64_t scaled_ms(int64_t ms, double scale) {
  return std::max<int64_t>(1, std::llround(static_cast<double>(ms) / scale));
}

// How much faster than the wall the engine's wall-driven timers run: an engine that follows the
// trace's time keeps its TTLs and tick in (unscaled) trace time.
double timer_scale(const EngineConfig& c) { return c.follow_trace_time ? 1.0 : c.time_scale; }

L1Config l1_config(const EngineConfig& c) {
  L1Config l;
  l.size_in_bytes = c.l1_size_in_bytes;
  l.use_lazy = c.l1_use_lazy;
  l.init_size_in_bytes = std::min(c.l1_init_size_in_bytes, c.l1_size_in_bytes);
  l.align_bytes = c.l1_align_bytes;
  l.write_ttl_ms = scaled_ms(c.l1_write_ttl_seconds * 1000, timer_scale(c));
  l.read_ttl_ms = scaled_ms(c.l1_read_ttl_seconds * 1000, timer_scale(c));
  return l;
}
}  // namespace

struct StorageManager::BuiltL2 {
  std::unique_ptr<L2Adapter> adapter;
  std::optional<L2EvictionConfig> eviction;
};

Result<std::unique_ptr<StorageManager>> StorageManager::open(const EngineConfig& cfg,
                                                             util::Clock& clock) {
  if (Status s = cfg.validate(); !s) return s;
  std::vector<BuiltL2> l2;
  for (size_t i = 0; i < cfg.l2_adapters.size(); ++i) {
    const nlohmann::json spec = nlohmann::json::parse(cfg.l2_adapters[i]);
    Result<std::unique_ptr<L2Adapter>> adapter = make_l2_adapter(spec);
    if (!adapter) return adapter.status();
    Result<std::optional<L2EvictionConfig>> eviction = L2EvictionConfig::from_adapter_json(spec);
    if (!eviction) return eviction.status();
    l2.push_back(BuiltL2{std::move(adapter).value(), eviction.value()});
  }
  return std::unique_ptr<StorageManager>(new StorageManager(cfg, clock, std::move(l2)));
}

StorageManager::StorageManager(const EngineConfig& cfg, util::Clock& clock, std::vector<BuiltL2> l2)
    : cfg_(cfg),
      clock_(clock),
      loop_(clock),
      tick_period_ns_(scaled_ms(cfg.eviction_tick_ms, timer_scale(cfg)) * 1'000'000) {
  digest_ = cfg_.digest();
  l1_ = std::make_unique<L1Manager>(l1_config(cfg_), cfg_.follow_trace_time
                                                         ? static_cast<util::Clock&>(trace_clock_)
                                                         : static_cast<util::Clock&>(loop_clock_));
  policy_ = make_eviction_policy(cfg_.eviction_policy);
  bridge_ = std::make_unique<EvictionBridge>(*policy_, cfg_.bridge_reserved_write_creates);
  l1_->add_listener(bridge_.get());
  attach_l2(std::move(l2));
  std::vector<L2Adapter*> raw;
  for (const auto& a : adapters_) raw.push_back(a.get());
  if (cfg_.classify_misses) misses_ = std::make_unique<MissClassifier>();
  // Completion edges are asked for by causal runs only, which are the runs following the trace.
  store_ = std::make_unique<StoreController>(
      *l1_, raw, loop_, counters_, cfg_.l2_store_policy == "skip_l1",
      cfg_.follow_trace_time ? &trace_clock_ : nullptr, misses_.get());
  l1_->add_listener(store_.get());
  prefetch_ = std::make_unique<PrefetchController>(
      *l1_, raw, loop_, counters_, cfg_.l2_prefetch_max_in_flight,
      cfg_.l2_prefetch_policy == "retain", cfg_.follow_trace_time, misses_.get());
  if (misses_) {
    misses_->set_store_busy([this](const trace::ObjectKey& k) { return store_->storing({k}); });
  }
  if (cfg_.follow_trace_time) {
    next_trace_tick_ns_ = tick_period_ns_;  // follow_trace_time runs the ticks
  } else {
    schedule_tick(loop_.now_ns() + tick_period_ns_);
  }
  if (!clock_.is_virtual()) {
    loop_.set_wakeup([this] { wake(); });
    driver_ = std::thread([this] { driver_loop(); });
  }
}

// Each adapter attached to the event loop, with its eviction controller when LMCache wires one.
void StorageManager::attach_l2(std::vector<BuiltL2> l2) {
  for (size_t i = 0; i < l2.size(); ++i) {
    adapters_.push_back(std::move(l2[i].adapter));
    const std::optional<L2EvictionConfig>& ev = l2[i].eviction;
    const bool wired = ev && l2_eviction_wired(*ev, *adapters_.back());
    l2_eviction_.push_back(wired ? std::make_unique<L2EvictionController>(*adapters_.back(), *ev)
                                 : nullptr);
    L2AdapterContext ctx;
    ctx.clock = &loop_clock_;
    ctx.synchronous = clock_.is_virtual();
    ctx.key_namespace = cfg_.l2_key_namespace;
    ctx.time_scale = cfg_.time_scale;
    ctx.report_keys = wired;
    ctx.deliver = [this, i](int64_t at, L2Completion c) {
      loop_.post(at, [this, i, c = std::move(c)]() mutable { on_l2_completion(i, std::move(c)); });
    };
    adapters_.back()->attach(std::move(ctx));
    L2AdapterCounters ac;
    ac.type = std::string(adapters_.back()->type());
    ac.eviction_enabled = wired;
    counters_.adapters.push_back(ac);
    l2_failures_.emplace_back();
    l2_failures_.back().adapter = static_cast<int>(i);
    l2_failures_.back().type = ac.type;
  }
}

StorageManager::~StorageManager() { close(cfg_.drain_on_close); }

const PrefetchResult* StorageManager::prefetch_result(int64_t id) const {
  return prefetch_->result(id);
}

// ---------------------------------------------------------------- eviction loop (§3.1)

void StorageManager::schedule_tick(int64_t at) {
  loop_.schedule_at(at, [this, at] {
    if (evictor_stopped_) return;
    tick();
    schedule_tick(at + tick_period_ns_);
  });
}

void StorageManager::tick() {
  // The L2 controller shares the period (LMCache: its own 1 s thread for all adapters).
  for (size_t i = 0; i < l2_eviction_.size(); ++i)
    if (l2_eviction_[i]) l2_eviction_[i]->tick(counters_.adapters[i]);
  counters_.eviction_ticks++;
  auto [used, total] = l1_->memory_usage();
  const double usage = total == 0 ? 0.0 : static_cast<double>(used) / static_cast<double>(total);
  if (usage < cfg_.eviction_trigger_watermark) {
    counters_.eviction_ticks_skipped++;
    return;
  }
  counters_.eviction_ticks_triggered++;
  const L1Manager& l1 = *l1_;
  KeyList victims = policy_->get_eviction_victims(
      cfg_.eviction_ratio, [&l1](const trace::ObjectKey& k) { return l1.is_key_evictable(k); });
  if (victims.empty()) return;
  std::vector<uint64_t> sizes;
  std::vector<L1Status> st = l1_->delete_keys(victims, false, &sizes);
  for (size_t i = 0; i < st.size(); ++i) {
    if (st[i] == L1Status::Success) {
      counters_.l1_evicted_keys++;
      counters_.l1_evicted_bytes += sizes[i];
      counters_.cache.evicted.add(sizes[i]);
      if (misses_) misses_->evicted(victims[i]);
    } else if (st[i] == L1Status::KeyIsLocked) {
      counters_.l1_eviction_locked_skips++;
    }
  }
}

// The recorded server ticked once per second of its own time: so does the replay, per second of
// trace time issued, however fast or unevenly the causal schedule gets through it.
void StorageManager::follow_trace_time(int64_t trace_ns) {
  if (!cfg_.follow_trace_time) return;
  CallLock g(*this);
  trace_clock_.advance_to(trace_ns);
  while (!evictor_stopped_ && trace_ns >= next_trace_tick_ns_) {
    tick();
    next_trace_tick_ns_ += tick_period_ns_;
  }
}

bool StorageManager::store_pending(const KeyList& keys) const {
  std::lock_guard<std::mutex> g(mu_);
  return store_->storing(keys);
}

int64_t StorageManager::oldest_store_trace_ns() const {
  std::lock_guard<std::mutex> g(mu_);
  return store_->oldest_in_flight_trace_ns();
}

void StorageManager::set_record(double t_wall) {
  if (!misses_) return;
  CallLock g(*this);
  misses_->set_record(t_wall);
}

std::optional<stats::MissSummary> StorageManager::miss_summary() const {
  std::lock_guard<std::mutex> g(mu_);
  if (!misses_) return std::nullopt;
  stats::MissSummary s = misses_->summary();
  s.engine_follows_trace = cfg_.follow_trace_time;
  return s;
}

std::vector<stats::MissEvent> StorageManager::take_misses() {
  CallLock g(*this);
  return misses_ ? misses_->take_events() : std::vector<stats::MissEvent>{};
}

bool StorageManager::prefetch_pending(const KeyList& keys) const {
  std::lock_guard<std::mutex> g(mu_);
  return prefetch_->prefetching(keys);
}

void StorageManager::eviction_tick_now() {
  CallLock g(*this);
  tick();
}

// ---------------------------------------------------------------- SM calls (§1)

std::vector<L1Status> StorageManager::reserve_write_keys(const KeyList& keys,
                                                         const trace::MemoryLayout& layout,
                                                         trace::WriteMode mode) {
  CallLock g(*this);
  counters_.reserve_write_calls++;
  counters_.reserve_write_keys += keys.size();
  std::vector<uint8_t> existed;
  if (mode != trace::WriteMode::New) {
    existed.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) existed[i] = l1_->contains(keys[i]);
  }
  std::vector<L1Status> st = l1_->reserve_write(keys, false, layout, mode);
  const uint64_t object_bytes = layout.object_bytes();
  for (size_t i = 0; i < st.size(); ++i) {
    switch (st[i]) {
      case L1Status::Success:
        if (misses_) misses_->write_reserved(keys[i], false);
        counters_.reserve_write_ok_keys++;
        counters_.cache.write_reserved.add(object_bytes);
        if (!existed.empty() && existed[i]) counters_.reserve_write_in_place_keys++;
        break;
      case L1Status::OutOfMemory:
        if (misses_) misses_->write_reserved(keys[i], true);
        counters_.reserve_write_oom_keys++;
        counters_.cache.write_refused_oom.add(object_bytes);
        break;
      default:
        counters_.reserve_write_not_writable_keys++;
        counters_.cache.write_not_writable_keys++;
        break;
    }
  }
  return st;
}

std::vector<L1Status> StorageManager::finish_write_keys(const KeyList& keys) {
  CallLock g(*this);
  counters_.finish_write_calls++;
  counters_.finish_write_keys += keys.size();
  std::vector<L1Status> st = l1_->finish_write(keys);
  for (size_t i = 0; i < st.size(); ++i) {
    const L1Status s = st[i];
    if (s == L1Status::Success) {
      if (misses_) misses_->entered_l1(keys[i]);
      counters_.finish_write_ok_keys++;
      counters_.cache.stored_keys++;
    } else if (s == L1Status::KeyNotExist)
      counters_.finish_write_not_exist_keys++;
    else
      counters_.finish_write_wrong_state_keys++;
  }
  return st;
}

std::vector<L1Status> StorageManager::finish_read_keys(const KeyList& keys, int64_t read_locks) {
  CallLock g(*this);
  counters_.finish_read_calls++;
  counters_.finish_read_keys += keys.size();
  std::vector<L1Status> st = l1_->finish_read(keys, read_locks);
  for (auto s : st) {
    if (s == L1Status::Success)
      counters_.finish_read_ok_keys++;
    else if (s == L1Status::KeyNotExist)
      counters_.finish_read_not_exist_keys++;
    else
      counters_.finish_read_wrong_state_keys++;
  }
  return st;
}

std::vector<L1Status> StorageManager::delete_l1_keys(const KeyList& keys) {
  CallLock g(*this);
  return l1_->delete_keys(keys, false);
}

engine::CallResult StorageManager::reserve_write(const KeyList& keys,
                                                 const trace::MemoryLayout& layout,
                                                 trace::WriteMode mode) {
  reserve_write_keys(keys, layout, mode);
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::finish_write(const KeyList& keys) {
  finish_write_keys(keys);
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::abort_write(const KeyList& keys) {
  CallLock g(*this);
  counters_.abort_write_calls++;
  for (auto s : l1_->finish_write_and_delete(keys)) {
    if (s == L1Status::Success)
      counters_.abort_write_ok_keys++;
    else
      counters_.abort_write_failed_keys++;
  }
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::submit_prefetch(const trace::PrefetchSpec& spec,
                                                   std::string_view external_request_id,
                                                   bool skip_l2) {
  try {
    submit_prefetch_task(spec, external_request_id, skip_l2);
  } catch (const std::invalid_argument& e) {
    return engine::CallResult::fail(e.what());
  }
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::read_enter(const KeyList& keys, engine::ReadContext& ctx) {
  CallLock g(*this);
  counters_.read_enter_calls++;
  counters_.read_enter_keys += keys.size();
  std::vector<L1Status> st = l1_->unsafe_read(keys);
  ctx.keys = keys;
  ctx.good_keys.clear();
  ctx.all_good = true;
  // The L1 result is a dict: a duplicate key collapses to its first position.
  std::unordered_set<trace::ObjectKey, KeyHash> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys.size() > 1 && !seen.insert(keys[i]).second) continue;
    if (st[i] == L1Status::Success) {
      ctx.good_keys.push_back(keys[i]);
      continue;
    }
    ctx.all_good = false;
    if (misses_) {
      const KeyList one{keys[i]};
      misses_->read_miss(keys[i], prefetch_->queued_for(one), prefetch_->prefetching(one),
                         st[i] != L1Status::KeyNotExist);
    }
    if (st[i] == L1Status::KeyNotExist)
      counters_.read_failed_not_found_keys++;
    else
      counters_.read_failed_write_locked_keys++;
  }
  counters_.read_good_keys += ctx.good_keys.size();
  (ctx.all_good ? counters_.read_enter_all_good : counters_.read_enter_failed)++;
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::read_exit(engine::ReadContext& ctx) {
  CallLock g(*this);
  counters_.read_exit_calls++;
  // Replay never passes release_on_exit, so it is True: one lock per good key, always.
  if (!ctx.good_keys.empty()) {
    for (auto s : l1_->finish_read(ctx.good_keys, 1)) {
      if (s == L1Status::Success)
        counters_.read_exit_released_keys++;
      else
        counters_.read_exit_release_failed_keys++;
    }
  }
  return engine::CallResult::ok();
}

engine::CallResult StorageManager::finish_read(const KeyList& keys, int64_t read_locks) {
  finish_read_keys(keys, read_locks);
  return engine::CallResult::ok();
}

// ---------------------------------------------------------------- time

void StorageManager::run_until(int64_t now_ns) {
  CallLock g(*this);
  if (closed_) return;
  loop_.run_until(now_ns);
}

void StorageManager::hold_wakeups(bool on) {
  CallLock g(*this);
  hold_wakeups_ = on;  // off: the lock's release wakes the driver for what was held
}

void StorageManager::release_wakeups() {
  bool wake;
  {
    std::lock_guard<std::mutex> g(mu_);
    const bool held = hold_wakeups_;
    hold_wakeups_ = false;
    wake = wake_due_locked();
    hold_wakeups_ = held;
  }
  if (wake) this->wake();
}

StorageManager::CallLock::~CallLock() {
  const bool wake = sm_.wake_due_locked();
  sm_.mu_.unlock();
  if (wake) sm_.wake();
}

bool StorageManager::wake_due_locked() {
  const int64_t next = loop_.next_scheduled_ns();
  if (!driver_.joinable() || next >= driver_deadline_ns_) {
    wake_held_since_ns_ = 0;
    return false;
  }
  if (hold_wakeups_) {
    const int64_t now = clock_.now_ns();
    if (wake_held_since_ns_ == 0) wake_held_since_ns_ = now;
    if (now - wake_held_since_ns_ < kHeldWakeMaxNs) return false;
  }
  wake_held_since_ns_ = 0;
  driver_deadline_ns_ = next;  // it wakes and recomputes: no second wake for the same work
  return true;
}

int64_t StorageManager::next_event_ns() const {
  std::lock_guard<std::mutex> g(mu_);
  return closed_ ? kNever : loop_.next_event_ns();
}

bool StorageManager::stores_idle() const {
  std::lock_guard<std::mutex> g(mu_);
  return store_->idle();
}

void StorageManager::wake() {
  {
    std::lock_guard<std::mutex> g(wake_mu_);
    wake_flag_ = true;
  }
  wake_cv_.notify_one();
}

void StorageManager::driver_loop() {
  for (;;) {
    int64_t next;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (closed_) return;
      const int64_t now = clock_.now_ns();
      loop_.run_until(now);
      next = std::min(loop_.next_event_ns(), now + kDriverMaxSleepNs);
      driver_deadline_ns_ = next;  // calls queueing work before it wake this thread
      wake_held_since_ns_ = 0;
    }
    std::unique_lock<std::mutex> wl(wake_mu_);
    if (driver_stop_) return;
    if (!wake_flag_) {
      const int64_t wait = std::max<int64_t>(0, next - clock_.now_ns());
      if (wait > 0)
        wake_cv_.wait_for(wl, std::chrono::nanoseconds(wait),
                          [this] { return wake_flag_ || driver_stop_; });
    }
    wake_flag_ = false;
    if (driver_stop_) return;
  }
}

// ---------------------------------------------------------------- L2 completions

void StorageManager::on_l2_completion(size_t i, L2Completion c) {
  L2AdapterCounters& ac = counters_.adapters[i];
  uint64_t hits = 0;
  for (auto b : c.bitmap) hits += b;
  switch (c.kind) {
    case L2OpKind::Store:
      ac.store_tasks++;
      ac.store_keys += c.num_keys;
      ac.store_bytes += c.bytes;
      ac.store_failed_tasks += !c.success;
      break;
    case L2OpKind::Lookup:
      ac.lookup_tasks++;
      ac.lookup_keys += c.num_keys;
      ac.lookup_found_keys += hits;
      break;
    case L2OpKind::Load:
      ac.load_tasks++;
      ac.load_keys += c.num_keys;
      ac.load_hit_keys += hits;
      ac.load_bytes += c.bytes;
      break;
  }
  if (samples_on_ || observer_) {
    L2OpSample s;
    s.adapter_index = i;
    s.kind = c.kind;
    s.submit_ns = c.submit_ns;
    s.end_ns = c.end_ns;
    s.latency_ns = c.end_ns - c.submit_ns;
    s.keys = c.num_keys;
    s.bytes = c.bytes;
    s.success = c.success;
    if (observer_) observer_(s);
    if (samples_on_) samples_.push_back(s);
  }
  if (!c.success) count_l2_failure(i, c);
  if (l2_eviction_[i]) l2_eviction_[i]->on_completion(c);
  switch (c.kind) {
    case L2OpKind::Store:
      store_->on_store_completed(i, c);
      break;
    case L2OpKind::Lookup:
      prefetch_->on_lookup_completed(i, c);
      break;
    case L2OpKind::Load:
      prefetch_->on_load_completed(i, c);
      break;
  }
  if (c.kind == L2OpKind::Store) {
    L2Usage u = adapters_[i]->usage();
    ac.used_bytes = u.used_bytes;
    ac.capacity_bytes = u.capacity_bytes;
    ac.peak_used_bytes = std::max(ac.peak_used_bytes, u.used_bytes);
  }
}

void StorageManager::count_l2_failure(size_t i, const L2Completion& c) {
  stats::L2FailureRecord& r = l2_failures_[i];
  r.record(static_cast<size_t>(c.kind), c.end_ns,
           c.error.empty() ? "failed (the adapter gave no reason)" : c.error);
  if (failure_listener_) failure_listener_(r);
}

std::vector<stats::L2FailureRecord> StorageManager::l2_failures() const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<stats::L2FailureRecord> out;
  for (const auto& r : l2_failures_)
    if (r.failed) out.push_back(r);
  return out;
}

void StorageManager::set_l2_failure_listener(engine::L2FailureListener fn) {
  CallLock g(*this);
  failure_listener_ = std::move(fn);
}

void StorageManager::enable_l2_op_samples(bool on) {
  CallLock g(*this);
  samples_on_ = on;
}

std::vector<engine::L2Op> StorageManager::take_l2_ops() {
  std::vector<engine::L2Op> out;
  for (const L2OpSample& s : take_l2_op_samples()) {
    engine::L2Op op;
    op.adapter = static_cast<int>(s.adapter_index);
    op.kind = s.kind == L2OpKind::Store ? "store" : s.kind == L2OpKind::Lookup ? "lookup" : "load";
    op.end_ns = s.end_ns;
    op.latency_ns = s.latency_ns;
    op.bytes = s.bytes;
    op.ok = s.success;
    out.push_back(op);
  }
  return out;
}

std::vector<L2OpSample> StorageManager::take_l2_op_samples() {
  CallLock g(*this);
  std::vector<L2OpSample> out;
  out.swap(samples_);
  return out;
}

void StorageManager::set_l2_op_observer(std::function<void(const L2OpSample&)> fn) {
  CallLock g(*this);
  observer_ = std::move(fn);
}

// ---------------------------------------------------------------- close (§1.6)

void StorageManager::close(bool drain) {
  {
    CallLock g(*this);
    if (closed_) return;
  }
  if (drain) {
    const int64_t give_up = clock_.now_ns() + 60'000'000'000;  // real clock: a stuck adapter
    for (;;) {
      int64_t next;
      {
        CallLock g(*this);
        loop_.run_until(clock_.now_ns());
        if (store_->idle()) {
          counters_.drained = true;
          break;
        }
        next = loop_.next_event_ns();
      }
      if (clock_.is_virtual()) {
        if (next == kNever) break;
        clock_.sleep_until(next);
      } else {
        if (clock_.now_ns() > give_up) break;
        clock_.sleep_until(std::min(next, clock_.now_ns() + 1'000'000));
      }
    }
  }
  if (driver_.joinable()) {
    {
      std::lock_guard<std::mutex> g(wake_mu_);
      driver_stop_ = true;
    }
    wake_cv_.notify_one();
    driver_.join();
  }
  CallLock g(*this);
  if (closed_) return;
  // 1. SPARSE leases.
  for (const Lease& l : leases_) {
    l1_->finish_read(l.found_keys, l.readers);
    counters_.sparse_leases_released_at_close += l.found_keys.size();
  }
  leases_.clear();
  // 2. prefetch controller, 3. store controller.
  prefetch_->stop();
  counters_.l2_stores_in_flight_at_close = store_->in_flight();
  counters_.l2_stores_abandoned_at_close = store_->in_flight();
  store_->stop();
  // 4. eviction loop.
  evictor_stopped_ = true;
  // 6. adapters.
  for (auto& a : adapters_) a->close();
  counters_.closed = true;
  closed_ = true;
}

engine::CacheOutcome StorageManager::cache_outcome() const {
  std::lock_guard<std::mutex> g(mu_);
  return counters_.cache;
}

engine::Counters StorageManager::counters() const {
  std::lock_guard<std::mutex> g(mu_);
  engine::Counters j = counters_.to_counters();
  auto [used, total] = l1_->memory_usage();
  const L1Stats& s = l1_->stats();
  j.add("engine", "native");
  j.add("config_digest", digest_);
  j.add("drain_on_close", cfg_.drain_on_close);
  engine::Counters l1;
  l1.add("used_bytes", used);
  l1.add("total_bytes", total);
  l1.add("usage_ratio", total ? static_cast<double>(used) / static_cast<double>(total) : 0.0);
  l1.add("peak_used_bytes", s.peak_used_bytes);
  l1.add("objects", l1_->num_objects());
  l1.add("allocations", s.allocations);
  l1.add("allocation_failures", s.allocation_failures);
  l1.add("deleted_keys", s.deleted_keys);
  l1.add("deleted_bytes", s.deleted_bytes);
  l1.add("temporary_frees", s.temporary_frees);
  l1.add("leaked_bytes", s.leaked_bytes);
  l1.add("eviction_tracked_keys", policy_->tracked());
  j.add("l1", std::move(l1));
  return j;
}

}  // namespace fleet::storage
