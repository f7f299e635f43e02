#include "fleet/engine/prefetch_controller.h"

#include <algorithm>

#include "fleet/engine/engine_counters.h"
#include "fleet/engine/event_loop.h"
#include "fleet/engine/fold.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/engine/miss_classifier.h"

namespace fleet::storage {

struct PrefetchController::Request {
  int64_t id = 0;
  trace::PrefetchSpec spec;
  size_t n = 0, stride = 1, num_chunks = 0, world = 1;
  int64_t readers = 1;
  bool warm = false, prefix = false, counted = false;
  std::vector<uint8_t> l1_held;    // we hold `readers` read locks on this position
  std::vector<uint8_t> l1_found;   // L1 had it at the lock pass (for the cache accounting)
  std::vector<uint8_t> to_load;    // planned on an adapter and kept by the first fold
  std::vector<uint8_t> l1_window;  // L1-only fallback retention
  size_t lookups_pending = 0, loads_pending = 0;
  std::vector<std::vector<uint8_t>> found;      // per adapter
  std::vector<std::vector<uint8_t>> l2_locked;  // per adapter, lock still held
  std::vector<int> plan;                        // adapter index or -1
  std::vector<uint8_t> reserved;                // write-reserved in L1 by this request
  std::vector<uint8_t> loaded;
  std::string failure;
  double record = 0.0;     // the record that submitted it, its t_wall (miss attribution)
  int64_t started_ns = 0;  // when it looked L2 up
};

namespace {
uint64_t task_key(size_t adapter, uint64_t task) { return (uint64_t(adapter) << 48) | task; }
}  // namespace

PrefetchKeyBytes::PrefetchKeyBytes(const trace::PrefetchSpec& spec) : spec_(spec) {
  for (const auto& [gid, layout] : spec.group_layouts) {
    if (groups_ == kInline) break;
    by_group_[groups_++] = {gid, layout.object_bytes()};
  }
}

uint64_t PrefetchKeyBytes::operator()(const trace::ObjectKey& key) const {
  for (size_t i = 0; i < groups_; ++i)
    if (by_group_[i].first == key.object_group_id) return by_group_[i].second;
  if (spec_.group_layouts.size() == 1) return by_group_[0].second;
  auto it = spec_.group_layouts.find(key.object_group_id);  // beyond the inline groups
  return it == spec_.group_layouts.end() ? 0 : it->second.object_bytes();
}

PrefetchController::PrefetchController(L1Manager& l1, std::vector<L2Adapter*> adapters,
                                       EventLoop& loop, EngineCounters& counters,
                                       int64_t max_in_flight, bool retain_policy,
                                       bool track_busy_keys, MissClassifier* misses)
    : l1_(l1),
      adapters_(std::move(adapters)),
      loop_(loop),
      counters_(counters),
      max_in_flight_(max_in_flight),
      retain_policy_(retain_policy),
      busy_(track_busy_keys || misses != nullptr),
      queued_(misses != nullptr),
      misses_(misses) {}

PrefetchController::~PrefetchController() = default;

const PrefetchResult* PrefetchController::result(int64_t id) const {
  auto it = results_.find(id);
  return it == results_.end() ? nullptr : &it->second;
}

KeyList PrefetchController::keys_at(const Request& r, const std::vector<size_t>& pos) const {
  KeyList out;
  out.reserve(pos.size());
  for (size_t p : pos) out.push_back(r.spec.keys[p]);
  return out;
}

int64_t PrefetchController::submit(trace::PrefetchSpec spec) {
  auto r = std::make_unique<Request>();
  r->id = next_id_++;
  r->n = spec.keys.size();
  r->world = static_cast<size_t>(std::max<int64_t>(spec.attn.world_size, 1));
  r->stride = std::max<size_t>(spec.attn.num_object_groups() * r->world, 1);
  r->num_chunks = r->n / r->stride;
  r->readers = L1Manager::clamp_read_locks(spec.num_kv_readers);
  r->warm = spec.mode == trace::PrefetchMode::Warm;
  r->prefix = spec.policy == trace::TrimPolicy::Prefix;
  r->spec = std::move(spec);
  busy_.add(r->spec.keys);
  queued_.add(r->spec.keys);
  if (misses_) r->record = misses_->record();
  const int64_t id = r->id;
  results_[id].id = id;
  while (results_.size() > 4096) results_.erase(results_.begin());
  pending_.push_back(std::move(r));
  schedule_step();
  return id;
}

void PrefetchController::schedule_step() {
  if (step_scheduled_ || stopped_) return;
  step_scheduled_ = true;
  loop_.schedule_at(loop_.now_ns(), [this] { step(); });
}

void PrefetchController::step() {
  step_scheduled_ = false;
  if (stopped_) return;
  while (!pending_.empty() && static_cast<int64_t>(in_flight_) < max_in_flight_) {
    std::unique_ptr<Request> r = std::move(pending_.front());
    pending_.pop_front();
    queued_.remove(r->spec.keys);
    Request& ref = *r;
    active_[ref.id] = std::move(r);
    start(ref);
  }
}

void PrefetchController::release_l1(Request& r, const std::vector<size_t>& positions) {
  if (positions.empty()) return;
  l1_.finish_read(keys_at(r, positions), r.readers);
  for (size_t p : positions) r.l1_held[p] = 0;
}

void PrefetchController::start(Request& r) {
  counters_.l2_prefetch_requests_started++;
  r.started_ns = loop_.now_ns();
  // 1. L1 lock pass over the request's keys.
  std::vector<L1Status> st = l1_.reserve_read(r.spec.keys, r.readers);
  r.l1_held.assign(r.n, 0);
  for (size_t i = 0; i < r.n; ++i) r.l1_held[i] = st[i] == L1Status::Success;
  for (auto h : r.l1_held) counters_.l2_prefetch_l1_locked_keys += h;
  r.l1_found = r.l1_held;
  if (r.prefix) {
    FoldResult f1 =
        fold_unfold_ranked(r.l1_held, r.num_chunks, r.world, r.spec.attn.num_chunks_in_sw);
    r.l1_window = f1.retain;
    std::vector<size_t> release;
    for (size_t p = 0; p < r.n && p < f1.hit_chunks * r.stride; ++p)
      if (r.l1_held[p] && !f1.retain[p]) release.push_back(p);
    release_l1(r, release);
  } else {
    r.l1_window = r.l1_held;
  }
  // 2. Lookup-and-lock on every adapter.
  if (adapters_.empty()) {
    finish(r);
    return;
  }
  r.counted = true;
  in_flight_++;
  r.found.assign(adapters_.size(), {});
  r.l2_locked.assign(adapters_.size(), std::vector<uint8_t>(r.n, 0));
  r.lookups_pending = adapters_.size();
  for (size_t a = 0; a < adapters_.size(); ++a) {
    counters_.l2_lookup_requests++;
    counters_.l2_lookup_keys += r.n;
    uint64_t t = adapters_[a]->submit_lookup_and_lock(r.spec.keys);
    tasks_[task_key(a, t)] = {r.id, {}};
  }
}

void PrefetchController::on_lookup_completed(size_t a, const L2Completion& c) {
  auto it = tasks_.find(task_key(a, c.task_id));
  if (it == tasks_.end()) return;
  auto rit = active_.find(it->second.first);
  tasks_.erase(it);
  if (rit == active_.end()) return;
  Request& r = *rit->second;
  r.found[a] = c.bitmap;
  r.found[a].resize(r.n, 0);
  r.l2_locked[a] = r.found[a];
  for (auto b : r.found[a]) counters_.l2_lookup_found_keys += b;
  if (--r.lookups_pending == 0) plan_and_load(r);
}

void PrefetchController::unlock_l2(Request& r, const std::vector<uint8_t>* keep) {
  for (size_t a = 0; a < r.l2_locked.size(); ++a) {
    std::vector<size_t> pos;
    for (size_t p = 0; p < r.n; ++p) {
      if (!r.l2_locked[a][p]) continue;
      if (keep && (*keep)[p] && r.plan[p] == static_cast<int>(a)) continue;
      pos.push_back(p);
      r.l2_locked[a][p] = 0;
    }
    if (!pos.empty()) adapters_[a]->submit_unlock(keys_at(r, pos));
  }
}

void PrefetchController::plan_and_load(Request& r) {
  const std::vector<uint8_t> trimmed = plan_loads(r);
  if (std::find(trimmed.begin(), trimmed.end(), uint8_t{1}) == trimmed.end() ||
      !reserve_for_loads(r, trimmed)) {
    finish(r);
    return;
  }
  unlock_l2(r, &trimmed);
  submit_loads(r, trimmed);
  if (r.loads_pending == 0) finish(r);
}

// Plan: lowest adapter index that found the key; L1-locked keys are not loaded. The plan is
// folded as the L1 lookup is; L1 holds the fold drops are released. Returns what to load (also
// kept as r.to_load).
std::vector<uint8_t> PrefetchController::plan_loads(Request& r) {
  r.plan.assign(r.n, -1);
  std::vector<uint8_t> uni(r.n, 0);
  for (size_t p = 0; p < r.n; ++p) {
    if (!r.l1_held[p]) {
      for (size_t a = 0; a < r.found.size(); ++a) {
        if (r.found[a][p]) {
          r.plan[p] = static_cast<int>(a);
          break;
        }
      }
    }
    uni[p] = r.l1_held[p] || r.plan[p] >= 0;
  }
  FoldResult f = r.prefix
                     ? fold_unfold_ranked(uni, r.num_chunks, r.world, r.spec.attn.num_chunks_in_sw)
                     : keep_all_found(uni, r.stride);
  std::vector<uint8_t> trimmed(r.n, 0);
  for (size_t p = 0; p < r.n; ++p) trimmed[p] = r.plan[p] >= 0 && f.retain[p];
  std::vector<size_t> release;
  for (size_t p = 0; p < r.n; ++p)
    if (r.l1_held[p] && !f.retain[p] && !r.l1_window[p]) release.push_back(p);
  release_l1(r, release);
  r.to_load = trimmed;
  return trimmed;
}

// Reserves L1 per object group for the keys to load, all-or-nothing for the request: on an
// out-of-memory or contended key the whole L2 load is abandoned (no re-plan, no partial
// salvage), what was reserved is given back, and false returned.
bool PrefetchController::reserve_for_loads(Request& r, const std::vector<uint8_t>& trimmed) {
  const bool temporary = !(r.warm || retain_policy_);
  std::map<int64_t, std::vector<size_t>> by_group;
  for (size_t p = 0; p < r.n; ++p)
    if (trimmed[p]) by_group[r.spec.keys[p].object_group_id].push_back(p);
  r.reserved.assign(r.n, 0);
  bool failed = false;
  for (auto& [gid, pos] : by_group) {
    auto lit = r.spec.group_layouts.find(gid);
    if (lit == r.spec.group_layouts.end()) {  // key group id outside the spec: use its slot
      lit = r.spec.group_layouts.find(static_cast<int64_t>((pos[0] % r.stride) / r.world));
    }
    trace::MemoryLayout layout =
        lit == r.spec.group_layouts.end() ? trace::MemoryLayout{} : lit->second;
    std::vector<L1Status> st =
        l1_.reserve_write(keys_at(r, pos), temporary, layout, trace::WriteMode::New);
    bool oom = false, contended = false;
    for (size_t i = 0; i < pos.size(); ++i) {
      if (st[i] == L1Status::Success) r.reserved[pos[i]] = 1;
      oom = oom || st[i] == L1Status::OutOfMemory;
      contended = contended || st[i] == L1Status::KeyNotWritable;
    }
    if (oom) {
      r.failure = "l1_oom";
      counters_.l2_prefetch_failed_l1_oom_keys += pos.size();
    } else if (contended) {
      r.failure = "l1_contended";
      for (auto s : st) counters_.l2_prefetch_failed_l1_contended_keys += s != L1Status::Success;
    }
    if (oom || contended) {
      failed = true;
      break;
    }
  }
  if (!failed) return true;
  std::vector<size_t> mine;
  for (size_t p = 0; p < r.n; ++p)
    if (r.reserved[p]) mine.push_back(p);
  if (!mine.empty()) l1_.finish_write_and_delete(keys_at(r, mine));
  r.reserved.assign(r.n, 0);
  return false;
}

// One load per planned adapter.
void PrefetchController::submit_loads(Request& r, const std::vector<uint8_t>& trimmed) {
  r.loaded.assign(r.n, 0);
  for (size_t a = 0; a < adapters_.size(); ++a) {
    std::vector<size_t> pos;
    std::vector<uint64_t> sizes;
    for (size_t p = 0; p < r.n; ++p) {
      if (!trimmed[p] || r.plan[p] != static_cast<int>(a)) continue;
      pos.push_back(p);
      const L1Object* o = l1_.find(r.spec.keys[p]);
      sizes.push_back(o ? o->logical_size : 0);
    }
    if (pos.empty()) continue;
    counters_.l2_load_tasks++;
    counters_.l2_load_keys += pos.size();
    r.loads_pending++;
    uint64_t t = adapters_[a]->submit_load(keys_at(r, pos), std::move(sizes));
    tasks_[task_key(a, t)] = {r.id, std::move(pos)};
  }
}

void PrefetchController::on_load_completed(size_t a, const L2Completion& c) {
  auto it = tasks_.find(task_key(a, c.task_id));
  if (it == tasks_.end()) return;
  auto rit = active_.find(it->second.first);
  std::vector<size_t> pos = std::move(it->second.second);
  tasks_.erase(it);
  if (rit == active_.end()) return;
  Request& r = *rit->second;
  for (size_t i = 0; i < pos.size() && i < c.bitmap.size(); ++i)
    if (c.bitmap[i]) r.loaded[pos[i]] = 1;
  counters_.l2_load_bytes += c.bytes;
  if (--r.loads_pending == 0) finish(r);
}

void PrefetchController::finish(Request& r) {
  busy_.remove(r.spec.keys);
  if (!r.l2_locked.empty()) unlock_l2(r, nullptr);
  std::vector<size_t> loaded_pos, failed_pos;
  for (size_t p = 0; p < r.reserved.size(); ++p) {
    if (!r.reserved[p]) continue;
    (r.loaded.size() > p && r.loaded[p] ? loaded_pos : failed_pos).push_back(p);
  }
  std::vector<uint8_t> admitted(r.n, 0);
  if (!loaded_pos.empty()) {
    KeyList keys = keys_at(r, loaded_pos);
    std::vector<L1Status> st =
        r.warm ? l1_.finish_write(keys) : l1_.finish_write_and_reserve_read(keys, r.readers);
    for (size_t i = 0; i < loaded_pos.size(); ++i) {
      if (st[i] != L1Status::Success) continue;
      admitted[loaded_pos[i]] = 1;
      if (misses_) misses_->entered_l1(keys[i]);
      if (!r.warm) r.l1_held[loaded_pos[i]] = 1;
      counters_.l2_loaded_keys++;
    }
  }
  if (!failed_pos.empty()) {
    l1_.finish_write_and_delete(keys_at(r, failed_pos));
    counters_.l2_prefetch_failed_not_found_keys += failed_pos.size();
  }
  r.reserved.clear();
  // Final retention over what is now in L1 for this request.
  std::vector<uint8_t> presence(r.n, 0);
  for (size_t p = 0; p < r.n; ++p) presence[p] = admitted[p] || r.l1_held[p];
  FoldResult f =
      r.prefix ? fold_unfold_ranked(presence, r.num_chunks, r.world, r.spec.attn.num_chunks_in_sw)
               : keep_all_found(presence, r.stride);
  std::vector<size_t> release, retained;
  std::vector<uint8_t> kept(r.n, 0);
  for (size_t p = 0; p < r.n; ++p) {
    const bool keep = f.retain[p] && presence[p];
    kept[p] = keep;
    if (keep) retained.push_back(p);
    if (r.l1_held[p] && (r.warm || !keep)) release.push_back(p);
  }
  release_l1(r, release);
  account(r, admitted, kept);
  l1_.touch_keys(keys_at(r, retained));

  PrefetchResult& res = results_[r.id];
  res.id = r.id;
  res.finished = true;
  res.hit_chunks = f.hit_chunks;
  res.retained = retained;
  res.failure = r.failure;
  for (size_t p = 0; p < r.n; ++p)
    if (admitted[p]) res.loaded.push_back(p);
  counters_.l2_prefetch_hit_chunks += f.hit_chunks;
  counters_.l2_prefetch_retained_keys += retained.size();
  counters_.l2_prefetch_requests_finished++;
  if (r.counted) in_flight_--;
  const int64_t id = r.id;
  active_.erase(id);  // `r` is gone after this line
  if (!pending_.empty()) schedule_step();
}

// Every position of a finished request in exactly one bucket (engine::PrefetchOutcome).
void PrefetchController::account(const Request& r, const std::vector<uint8_t>& admitted,
                                 const std::vector<uint8_t>& kept) {
  engine::PrefetchOutcome& out = r.warm ? counters_.cache.warm : counters_.cache.lookup;
  const PrefetchKeyBytes bytes_of(r.spec);
  for (size_t p = 0; p < r.n; ++p) {
    const uint64_t b = bytes_of(r.spec.keys[p]);
    const bool planned = !r.plan.empty() && r.plan[p] >= 0;
    if (kept[p]) {
      if (admitted[p])
        out.l2_at(static_cast<size_t>(r.plan[p])).add(b);
      else
        out.l1.add(b);
    } else if (!r.to_load.empty() && r.to_load[p] && !admitted[p]) {
      out.load_failed.add(b);
      classify(r, p, stats::MissClass::LoadFailed);
    } else if ((!r.l1_found.empty() && r.l1_found[p]) || planned) {
      out.trimmed.add(b);
      classify(r, p, stats::MissClass::Trimmed);
    } else {
      out.not_found.add(b);
      classify(r, p, stats::MissClass::NotFound);
    }
  }
}

// Only LOOKUP requests' misses are the hit rate's; NotFound is refined by the key's history.
void PrefetchController::classify(const Request& r, size_t p, stats::MissClass cls) const {
  if (!misses_ || r.warm) return;
  const trace::ObjectKey& k = r.spec.keys[p];
  if (cls == stats::MissClass::NotFound)
    misses_->not_found(r.record, k, r.started_ns);
  else
    misses_->prefetch_miss(r.record, k, cls);
}

void PrefetchController::stop() {
  stopped_ = true;
  auto abandon = [this](const Request& r) {
    engine::PrefetchOutcome& out = r.warm ? counters_.cache.warm : counters_.cache.lookup;
    const PrefetchKeyBytes bytes_of(r.spec);
    for (size_t p = 0; p < r.spec.keys.size(); ++p) {
      out.abandoned.add(bytes_of(r.spec.keys[p]));
      classify(r, p, stats::MissClass::Abandoned);
    }
  };
  for (const auto& r : pending_) abandon(*r);
  for (auto& [id, rp] : active_) {
    Request& r = *rp;
    abandon(r);
    std::vector<size_t> mine;
    for (size_t p = 0; p < r.reserved.size(); ++p)
      if (r.reserved[p]) mine.push_back(p);
    if (!mine.empty()) l1_.finish_write_and_delete(keys_at(r, mine));
    if (!r.l2_locked.empty()) unlock_l2(r, nullptr);
    counters_.l2_prefetch_abandoned_at_close++;
  }
  counters_.l2_prefetch_abandoned_at_close += pending_.size();
  active_.clear();
  pending_.clear();
  busy_.clear();
  tasks_.clear();
  in_flight_ = 0;
}

}  // namespace fleet::storage
