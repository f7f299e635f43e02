#include "fleet/engine/mock_l2_adapter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "fleet/engine/json_options.h"

namespace fleet::storage {

std::string_view l2_op_kind_name(L2OpKind k) {
  switch (k) {
    case L2OpKind::Store:
      return "store";
    case L2OpKind::Lookup:
      return "lookup";
    case L2OpKind::Load:
      return "load";
  }
  return "?";
}

namespace {
// A required number > 0 (null is not absent here: it is not a number).
double positive_number(const nlohmann::json& j, const char* field, JsonOptions& o) {
  if (!o.ok()) return 0;
  if (!j.contains(field)) {
    o.fail(field, "is required");
    return 0;
  }
  const auto& v = j.at(field);
  if (!v.is_number()) {
    o.fail(field, "must be a number");
    return 0;
  }
  const double d = v.get<double>();
  if (!(d > 0)) o.fail(field, "must be > 0");
  return d;
}
}  // namespace

Result<MockL2Config> MockL2Config::from_json(const nlohmann::json& j) {
  JsonOptions o(j, "mock adapter");
  MockL2Config c;
  c.max_size_gb = positive_number(j, "max_size_gb", o);
  c.mock_bandwidth_gb = positive_number(j, "mock_bandwidth_gb", o);
  if (!o.ok()) return o.status();
  return c;
}

MockL2Adapter::MockL2Adapter(const MockL2Config& cfg)
    : capacity_(static_cast<uint64_t>(cfg.max_size_gb * 1073741824.0)),
      bandwidth_(static_cast<uint64_t>(cfg.mock_bandwidth_gb * 1073741824.0)) {}

int64_t MockL2Adapter::transfer_ns(uint64_t bytes) const {
  if (bandwidth_ == 0) return 0;
  const auto ns =
      static_cast<int64_t>(static_cast<unsigned __int128>(bytes) * 1'000'000'000u / bandwidth_);
  return ctx_.time_scale == 1.0 ? ns : std::llround(static_cast<double>(ns) / ctx_.time_scale);
}

int64_t MockL2Adapter::lock_count(const trace::ObjectKey& k) const {
  const Ref r = find(k);
  return present(r) ? r.entry->locks : 0;
}

MockL2Adapter::Slot MockL2Adapter::bound_id(const trace::ObjectKey& k) const {
  if (by_id_.empty()) return Objects::npos;
  if (!bound_index_built_) {
    for (uint32_t id = 0; id < key_table_.size(); ++id)
      bound_index_.value(bound_index_.try_emplace(key_table_[id]).first) = id;
    bound_index_built_ = true;
  }
  const Slot s = bound_index_.find(k);
  return s == Objects::npos ? s : bound_index_.value(s);
}

MockL2Adapter::Ref MockL2Adapter::find(const trace::ObjectKey& k) const {
  if (const Slot id = bound_id(k); id != Objects::npos) return find(id);
  const Slot s = objects_.find(k);
  if (s == Objects::npos) return {};
  return {const_cast<Entry*>(&objects_.value(s)), s};
}

MockL2Adapter::Ref MockL2Adapter::find(uint32_t id) const {
  if (id >= by_id_.size()) {
    throw std::logic_error("mock L2 adapter: key id " + std::to_string(id) +
                           " outside the bound table of " + std::to_string(by_id_.size()));
  }
  return {&by_id_[id], Objects::npos};
}

MockL2Adapter::Ref MockL2Adapter::insert(const trace::ObjectKey& k) {
  if (const Slot id = bound_id(k); id != Objects::npos) return find(id);
  const Slot s = objects_.try_emplace(k).first;
  return {&objects_.value(s), s};
}

void MockL2Adapter::remove(Ref r) {
  current_ -= std::min(current_, r.entry->size);
  if (r.slot == Objects::npos) {
    *r.entry = Entry{};  // a bound id: absent again
  } else {
    objects_.erase(r.slot);
  }
}

uint64_t MockL2Adapter::deliver(L2Completion c) {
  const uint64_t id = next_task_++;
  c.task_id = id;
  const int64_t at = c.end_ns;
  ctx_.deliver(at, std::move(c));
  return id;
}

template <class Key>
L2Completion MockL2Adapter::store(std::span<const Key> keys, std::span<const uint64_t> sizes) {
  L2Completion c;
  c.kind = L2OpKind::Store;
  c.submit_ns = ctx_.clock->now_ns();
  c.num_keys = keys.size();
  if (ctx_.report_keys) c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t size = sizes[i];
    if (size > capacity_) continue;
    if (present(find(keys[i]))) continue;
    if (current_ + size > capacity_) continue;  // no self-eviction in era 3
    Entry& e = *insert(keys[i]).entry;
    e.size = size;
    e.locks = 0;
    e.present = true;
    current_ += size;
    c.bytes += size;
    if (ctx_.report_keys) c.bitmap[i] = 1;  // LMCache notifies only the keys it stored
  }
  c.end_ns = c.submit_ns + transfer_ns(c.bytes);
  return c;
}

template <class Key>
L2Completion MockL2Adapter::lookup_and_lock(std::span<const Key> keys) {
  L2Completion c;
  c.kind = L2OpKind::Lookup;
  c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const Ref r = find(keys[i]);
    if (!present(r)) continue;
    c.bitmap[i] = 1;
    r.entry->locks++;
  }
  c.submit_ns = c.end_ns = ctx_.clock->now_ns();
  c.num_keys = keys.size();
  return c;
}

template <class Key>
L2Completion MockL2Adapter::load(std::span<const Key> keys, std::span<const uint64_t> sizes) {
  L2Completion c;
  c.kind = L2OpKind::Load;
  c.submit_ns = ctx_.clock->now_ns();
  c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const Ref r = find(keys[i]);
    if (!present(r)) continue;
    c.bitmap[i] = 1;
    c.bytes += std::min(sizes[i], r.entry->size);
  }
  c.end_ns = c.submit_ns + transfer_ns(c.bytes);
  c.num_keys = keys.size();
  return c;
}

template <class Key>
void MockL2Adapter::unlock(std::span<const Key> keys) {
  for (const Key& k : keys) {
    const Ref r = find(k);
    if (present(r) && r.entry->locks > 0) r.entry->locks--;
  }
}

uint64_t MockL2Adapter::submit_store(std::vector<trace::ObjectKey> keys,
                                     std::vector<uint64_t> sizes) {
  L2Completion c = store(std::span<const trace::ObjectKey>(keys), sizes);
  if (ctx_.report_keys) c.keys = std::move(keys);
  return deliver(std::move(c));
}

uint64_t MockL2Adapter::submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) {
  return deliver(lookup_and_lock(std::span<const trace::ObjectKey>(keys)));
}

uint64_t MockL2Adapter::submit_load(std::vector<trace::ObjectKey> keys,
                                    std::vector<uint64_t> sizes) {
  L2Completion c = load(std::span<const trace::ObjectKey>(keys), sizes);
  if (ctx_.report_keys) c.keys = std::move(keys);
  return deliver(std::move(c));
}

void MockL2Adapter::submit_unlock(std::vector<trace::ObjectKey> keys) {
  unlock(std::span<const trace::ObjectKey>(keys));
}

std::vector<trace::ObjectKey> MockL2Adapter::delete_keys(
    const std::vector<trace::ObjectKey>& keys) {
  std::vector<trace::ObjectKey> deleted;
  for (const auto& k : keys) {
    const Ref r = find(k);
    if (!present(r)) continue;  // locks are ignored
    remove(r);
    deleted.push_back(k);
  }
  return deleted;
}

void MockL2Adapter::unbind() {
  for (uint32_t id = 0; id < by_id_.size(); ++id)
    if (by_id_[id].present) objects_.value(objects_.try_emplace(key_table_[id]).first) = by_id_[id];
  by_id_.clear();
  bound_index_.clear();
  bound_index_built_ = false;
}

void MockL2Adapter::bind_key_table(std::span<const trace::ObjectKey> table) {
  unbind();
  L2Adapter::bind_key_table(table);
  by_id_.assign(table.size(), Entry{});
  if (objects_.empty()) return;  // an L2 replay without --prepare-l2: nothing to move
  for (uint32_t id = 0; id < table.size(); ++id) {
    const Slot s = objects_.find(table[id]);
    if (s == Objects::npos) continue;
    by_id_[id] = objects_.value(s);
    objects_.erase(s);
  }
}

// Reported keys are ObjectKeys: with report_keys set, the default (keys built from the table).
uint64_t MockL2Adapter::submit_store_ids(std::span<const uint32_t> ids,
                                         std::span<const uint64_t> sizes) {
  if (ctx_.report_keys) return L2Adapter::submit_store_ids(ids, sizes);
  return deliver(store(ids, sizes));
}

uint64_t MockL2Adapter::submit_lookup_and_lock_ids(std::span<const uint32_t> ids) {
  return deliver(lookup_and_lock(ids));
}

uint64_t MockL2Adapter::submit_load_ids(std::span<const uint32_t> ids,
                                        std::span<const uint64_t> sizes) {
  if (ctx_.report_keys) return L2Adapter::submit_load_ids(ids, sizes);
  return deliver(load(ids, sizes));
}

void MockL2Adapter::submit_unlock_ids(std::span<const uint32_t> ids) { unlock(ids); }

void MockL2Adapter::delete_ids(std::span<const uint32_t> ids) {
  for (uint32_t id : ids) {
    const Ref r = find(id);
    if (present(r)) remove(r);  // locks are ignored
  }
}

}  // namespace fleet::storage
