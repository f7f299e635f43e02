#include "fleet/engine/l1_manager.h"

#include <algorithm>

namespace fleet::storage {

namespace {
constexpr uint64_t kLazyChunk = 64ull << 20;  // the lazy allocator's 64 MiB granule

uint64_t align_up(uint64_t v, uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }
}  // namespace

uint64_t l1_heap_bytes(const L1Config& cfg) {
  if (!cfg.use_lazy) return cfg.size_in_bytes;
  // The lazy heap grows in the background from align_up(min(init, size)) to align_up(size);
  // growth is modelled as already complete (docs/engine.md).
  return align_up(cfg.size_in_bytes, kLazyChunk);
}

L1Manager::L1Manager(const L1Config& cfg, util::Clock& clock)
    : cfg_(cfg), clock_(clock), alloc_(l1_heap_bytes(cfg)) {}

uint64_t L1Manager::footprint(const trace::MemoryLayout& layout) const {
  uint64_t f = align_up(layout.object_bytes(), cfg_.align_bytes);
  return f == 0 ? std::max<uint64_t>(cfg_.align_bytes, 1) : f;
}

const L1Object* L1Manager::find(const trace::ObjectKey& key) const {
  const Slot slot = table_.find(key);
  return slot == Table::npos ? nullptr : &table_.value(slot);
}

void L1Manager::free_object(Slot slot) {
  const L1Object& o = table_.value(slot);
  alloc_.free(o.address, o.footprint);
  stats_.deleted_keys++;
  stats_.deleted_bytes += o.footprint;
  table_.erase(slot);
}

void L1Manager::notify_deleted(const KeyList& keys) {
  if (keys.empty()) return;
  for (auto* l : listeners_) l->on_l1_keys_deleted_by_manager(keys);
}

std::vector<L1Status> L1Manager::reserve_write(const KeyList& keys, bool is_temporary,
                                               const trace::MemoryLayout& layout,
                                               trace::WriteMode mode) {
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  std::vector<size_t> queued;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      if (mode == trace::WriteMode::Update) {
        out[i] = L1Status::KeyNotWritable;
      } else {
        queued.push_back(i);
      }
      continue;
    }
    L1Object& o = table_.value(slot);
    bool writable = !o.write_lock.is_locked(now) && !o.read_lock.is_locked(now) && !o.temporary;
    if (mode == trace::WriteMode::New || !writable) {
      out[i] = L1Status::KeyNotWritable;
    } else {
      o.write_lock.lock(now);  // in place: same buffer, layout ignored
    }
  }
  if (queued.empty()) return out;  // no listener call for in-place-only batches

  const uint64_t f = footprint(layout);
  addr_scratch_.clear();
  if (!alloc_.allocate_batch(f, queued.size(), addr_scratch_)) {
    for (size_t i : queued) out[i] = L1Status::OutOfMemory;
    stats_.allocation_failures++;
    return out;
  }
  const uint64_t logical = layout.object_bytes();
  for (size_t q = 0; q < queued.size(); ++q) {
    L1Object o;
    o.address = addr_scratch_[q];
    o.footprint = f;
    o.logical_size = logical;
    o.write_lock = TTLLock(cfg_.write_ttl_ms);
    o.read_lock = TTLLock(cfg_.read_ttl_ms);
    o.temporary = is_temporary;
    o.write_lock.lock(now);
    auto [slot, inserted] = table_.try_emplace(keys[queued[q]]);
    // Same absent key twice in one batch: the first buffer leaks.
    if (!inserted) stats_.leaked_bytes += table_.value(slot).footprint;
    table_.value(slot) = o;
  }
  stats_.allocations += queued.size();
  stats_.peak_used_bytes = std::max(stats_.peak_used_bytes, alloc_.used());
  if (wants(L1Listener::kReservedWrite)) {
    KeyList ok;
    for (size_t i = 0; i < keys.size(); ++i)
      if (out[i] == L1Status::Success) ok.push_back(keys[i]);
    for (auto* l : listeners_) l->on_l1_keys_reserved_write(ok);
  }
  return out;
}

std::vector<L1Status> L1Manager::finish_write(const KeyList& keys) {
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  KeyList notify;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    L1Object& o = table_.value(slot);
    if (!o.write_lock.is_locked(now) || o.read_lock.is_locked(now)) {
      out[i] = L1Status::KeyInWrongState;
      continue;
    }
    o.write_lock.unlock();
    if (!o.temporary && wants(L1Listener::kWriteFinished)) notify.push_back(keys[i]);
  }
  if (!notify.empty())
    for (auto* l : listeners_) l->on_l1_keys_write_finished(notify);
  return out;
}

std::vector<L1Status> L1Manager::unsafe_read(const KeyList& keys) const {
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
    } else if (!table_.value(slot).read_lock.is_locked(now)) {
      out[i] = L1Status::KeyNotReadable;
    }
  }
  return out;
}

std::vector<L1Status> L1Manager::reserve_read(const KeyList& keys, int64_t read_locks,
                                              std::vector<uint64_t>* logical_sizes) {
  const int64_t n = clamp_read_locks(read_locks);
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  if (logical_sizes) logical_sizes->assign(keys.size(), 0);
  KeyList ok;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    L1Object& o = table_.value(slot);
    if (o.write_lock.is_locked(now)) {
      out[i] = L1Status::KeyNotReadable;
      continue;
    }
    for (int64_t k = 0; k < n; ++k) o.read_lock.lock(now);
    if (logical_sizes) (*logical_sizes)[i] = o.logical_size;
    if (wants(L1Listener::kReservedRead)) ok.push_back(keys[i]);
  }
  if (!ok.empty())
    for (auto* l : listeners_) l->on_l1_keys_reserved_read(ok);
  return out;
}

std::vector<L1Status> L1Manager::finish_read(const KeyList& keys, int64_t read_locks) {
  const int64_t n = clamp_read_locks(read_locks);
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  KeyList ok, freed;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    L1Object& o = table_.value(slot);
    if (o.write_lock.is_locked(now) || !o.read_lock.is_locked(now)) {
      out[i] = L1Status::KeyInWrongState;
      continue;
    }
    for (int64_t k = 0; k < n; ++k) o.read_lock.unlock();
    if (wants(L1Listener::kReadFinished)) ok.push_back(keys[i]);
    if (o.temporary && !o.read_lock.is_locked(now)) {
      if (wants(L1Listener::kDeletedByManager)) freed.push_back(keys[i]);
      stats_.temporary_frees++;
      free_object(slot);
    }
  }
  if (!ok.empty())
    for (auto* l : listeners_) l->on_l1_keys_read_finished(ok);
  notify_deleted(freed);
  return out;
}

std::vector<L1Status> L1Manager::finish_write_and_reserve_read(const KeyList& keys,
                                                               int64_t read_locks) {
  const int64_t n = clamp_read_locks(read_locks);
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  KeyList ok;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    L1Object& o = table_.value(slot);
    if (!o.write_lock.is_locked(now) || o.read_lock.is_locked(now)) {
      out[i] = L1Status::KeyInWrongState;
      continue;
    }
    o.write_lock.unlock();
    for (int64_t k = 0; k < n; ++k) o.read_lock.lock(now);
    if (wants(L1Listener::kFinishWriteAndReserveRead)) ok.push_back(keys[i]);
  }
  if (!ok.empty())
    for (auto* l : listeners_) l->on_l1_keys_finish_write_and_reserve_read(ok);
  return out;
}

std::vector<L1Status> L1Manager::finish_write_and_delete(const KeyList& keys) {
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  KeyList freed;
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    L1Object& o = table_.value(slot);
    if (!o.write_lock.is_locked(now) || o.read_lock.is_locked(now)) {
      out[i] = L1Status::KeyInWrongState;
      continue;
    }
    o.write_lock.unlock();
    freed.push_back(keys[i]);
    free_object(slot);
  }
  notify_deleted(freed);
  return out;
}

std::vector<L1Status> L1Manager::delete_keys(const KeyList& keys, bool force,
                                             std::vector<uint64_t>* freed_bytes) {
  const int64_t now = now_ms();
  std::vector<L1Status> out(keys.size(), L1Status::Success);
  if (freed_bytes) freed_bytes->assign(keys.size(), 0);
  KeyList freed;
  freed.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const Slot slot = table_.find(keys[i]);
    if (slot == Table::npos) {
      out[i] = L1Status::KeyNotExist;
      continue;
    }
    const L1Object& o = table_.value(slot);
    if (!force && (o.read_lock.is_locked(now) || o.write_lock.is_locked(now))) {
      out[i] = L1Status::KeyIsLocked;
      continue;
    }
    if (freed_bytes) (*freed_bytes)[i] = o.footprint;
    freed.push_back(keys[i]);
    free_object(slot);
  }
  notify_deleted(freed);
  return out;
}

void L1Manager::touch_keys(const KeyList& keys) {
  if (keys.empty() || !wants(L1Listener::kAccessed)) return;
  for (auto* l : listeners_) l->on_l1_keys_accessed(keys);
}

void L1Manager::clear(bool force) {
  const int64_t now = now_ms();
  KeyList freed;
  table_.for_each([&](Slot slot) {
    const L1Object& o = table_.value(slot);
    if (!force && (o.read_lock.is_locked(now) || o.write_lock.is_locked(now))) return;
    freed.push_back(table_.key(slot));
    free_object(slot);
  });
  notify_deleted(freed);
}

bool L1Manager::is_key_evictable(const trace::ObjectKey& key) const {
  const Slot slot = table_.find(key);
  if (slot == Table::npos) return false;
  const int64_t now = now_ms();
  const L1Object& o = table_.value(slot);
  return !o.read_lock.is_locked(now) && !o.write_lock.is_locked(now);
}

}  // namespace fleet::storage
