#include "fleet/engine/store_controller.h"

#include <unordered_map>

#include "fleet/engine/engine_counters.h"
#include "fleet/engine/event_loop.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/engine/miss_classifier.h"

namespace fleet::storage {

StoreController::StoreController(L1Manager& l1, std::vector<L2Adapter*> adapters, EventLoop& loop,
                                 EngineCounters& counters, bool skip_l1,
                                 const util::Clock* trace_clock, MissClassifier* misses)
    : l1_(l1),
      adapters_(std::move(adapters)),
      loop_(loop),
      counters_(counters),
      skip_l1_(skip_l1),
      trace_clock_(trace_clock),
      misses_(misses),
      busy_(trace_clock != nullptr || misses != nullptr) {}

void StoreController::on_l1_keys_write_finished(const KeyList& keys) {
  if (stopped_ || adapters_.empty()) return;
  pending_.insert(pending_.end(), keys.begin(), keys.end());
  busy_.add(keys);
  if (!step_scheduled_) {
    step_scheduled_ = true;
    loop_.schedule_at(loop_.now_ns(), [this] { step(); });
  }
}

void StoreController::step() {
  step_scheduled_ = false;
  if (stopped_) return;
  KeyList batch;
  batch.swap(pending_);
  busy_.remove(batch);  // queued no longer: busy again below per task submitted
  // Group by (model_name, kv_rank), first appearance first (a batch rarely has more than one).
  std::vector<KeyList> groups;
  for (auto& k : batch) {
    KeyList* g = nullptr;
    for (auto& cand : groups) {
      if (cand.front().kv_rank == k.kv_rank && cand.front().model_name == k.model_name) {
        g = &cand;
        break;
      }
    }
    if (!g) g = &groups.emplace_back();
    g->push_back(std::move(k));
  }
  for (const KeyList& group : groups) {
    for (size_t a = 0; a < adapters_.size(); ++a) {
      std::vector<uint64_t> logical;
      std::vector<L1Status> st = l1_.reserve_read(group, 1, &logical);
      KeyList ok;
      std::vector<uint64_t> sizes;
      for (size_t i = 0; i < group.size(); ++i) {
        if (st[i] == L1Status::Success) {
          ok.push_back(group[i]);
          sizes.push_back(logical[i]);
        } else if (st[i] == L1Status::KeyNotExist) {
          counters_.l2_store_read_failed_not_found++;
        } else {
          counters_.l2_store_read_failed_write_locked++;
        }
      }
      if (ok.empty()) continue;
      counters_.l2_store_tasks++;
      counters_.l2_store_keys_submitted += ok.size();
      KeyList locked = ok;
      busy_.add(locked);
      uint64_t task = adapters_[a]->submit_store(std::move(ok), std::move(sizes));
      if (trace_clock_) {
        const int64_t now = trace_clock_->now_ns();
        since_[{a, task}] = now;
        since_order_.insert(now);
      }
      in_flight_[{a, task}] = std::move(locked);
    }
  }
}

void StoreController::on_store_completed(size_t adapter_index, const L2Completion& c) {
  auto it = in_flight_.find({adapter_index, c.task_id});
  if (it == in_flight_.end()) return;  // abandoned at close
  KeyList keys = std::move(it->second);
  in_flight_.erase(it);
  busy_.remove(keys);
  if (auto s = since_.find({adapter_index, c.task_id}); s != since_.end()) {
    since_order_.erase(since_order_.find(s->second));
    since_.erase(s);
  }
  std::vector<L1Status> st = l1_.finish_read(keys, 1);
  for (auto s : st)
    if (s != L1Status::Success) counters_.l2_store_release_wrong_state++;  // logged only
  if (c.success) {
    counters_.l2_store_succeeded_tasks++;
    counters_.l2_store_bytes += c.bytes;
    if (misses_)
      for (const auto& k : keys) misses_->store_landed(k, loop_.now_ns());
    if (skip_l1_) {
      std::vector<L1Status> del = l1_.delete_keys(keys, false);
      for (auto s : del)
        if (s == L1Status::Success) counters_.l2_store_l1_deleted_keys++;
    }
  } else {
    counters_.l2_store_failed_tasks++;
  }
}

void StoreController::stop() {
  stopped_ = true;
  pending_.clear();
  for (auto& [id, keys] : in_flight_) l1_.finish_read(keys, 1);
  in_flight_.clear();
  busy_.clear();
  since_.clear();
  since_order_.clear();
}

}  // namespace fleet::storage
