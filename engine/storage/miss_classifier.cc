#include "fleet/engine/miss_classifier.h"

#include <utility>

namespace fleet::storage {

using stats::MissClass;
using stats::MissWhere;

void MissClassifier::write_reserved(const trace::ObjectKey& k, bool refused_for_full_l1) {
  history_[k].refused = refused_for_full_l1;
}

void MissClassifier::entered_l1(const trace::ObjectKey& k) {
  History& h = history_[k];
  h.written = true;
  h.refused = false;
  h.evicted = false;
}

void MissClassifier::evicted(const trace::ObjectKey& k) { history_[k].evicted = true; }

void MissClassifier::store_landed(const trace::ObjectKey& k, int64_t now_ns) {
  history_[k].landed_ns = now_ns;
}

void MissClassifier::not_found(double record, const trace::ObjectKey& k, int64_t looked_up_ns) {
  const auto it = history_.find(k);
  MissClass cls = MissClass::Cold;
  const bool store_busy = store_busy_ && store_busy_(k);
  if (store_busy || (it != history_.end() && it->second.landed_ns > looked_up_ns)) {
    cls = MissClass::StoreNotLanded;
  } else if (it != history_.end()) {
    const History& h = it->second;
    if (h.refused)
      cls = MissClass::WriteRefused;
    else if (h.evicted)
      cls = MissClass::Evicted;
    else if (h.written || h.landed_ns >= 0)
      cls = MissClass::NotFound;
  }
  log(record, k, MissWhere::Prefetch, cls);
}

void MissClassifier::prefetch_miss(double record, const trace::ObjectKey& k, MissClass cls) {
  log(record, k, MissWhere::Prefetch, cls);
}

void MissClassifier::read_miss(const trace::ObjectKey& k, bool queued, bool loading,
                               bool write_locked) {
  // A running prefetch first: its load holds the key write-locked in L1.
  MissClass cls = MissClass::NotLoaded;
  if (queued) {
    cls = MissClass::PrefetchQueued;
  } else if (loading) {
    cls = MissClass::LoadRunning;
  } else if (write_locked) {
    cls = MissClass::WriteLocked;
  } else if (const auto it = history_.find(k); it != history_.end() && it->second.evicted) {
    cls = MissClass::Evicted;
  }
  log(record_, k, MissWhere::Read, cls);
}

void MissClassifier::log(double record, const trace::ObjectKey& k, MissWhere where, MissClass cls) {
  const stats::MissEvent e{record, trace::stable_key_id(k), where, cls};
  summary_.add(e);
  if (events_.size() < stats::MissSummary::kMaxLoggedEvents)
    events_.push_back(e);
  else
    ++summary_.dropped;
}

std::vector<stats::MissEvent> MissClassifier::take_events() {
  std::vector<stats::MissEvent> out(events_.begin(), events_.end());
  events_.clear();
  return out;
}

}  // namespace fleet::storage
