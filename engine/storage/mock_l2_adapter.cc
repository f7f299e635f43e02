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
  const Slot s = objects_.find(k);
  return present(s) ? objects_.value(s).locks : 0;
}

MockL2Adapter::Slot MockL2Adapter::find_slot(uint32_t id) const {
  if (id >= id_slot_.size()) {
    throw std::logic_error("mock L2 adapter: key id " + std::to_string(id) +
                           " outside the bound table of " + std::to_string(id_slot_.size()));
  }
  return id_slot_[id];
}

void MockL2Adapter::remove(Slot s) {
  Entry& e = objects_.value(s);
  current_ -= std::min(current_, e.size);
  if (e.pinned) {
    e = Entry{};  // absent again; its id keeps the slot
    e.pinned = true;
  } else {
    objects_.erase(s);
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
    if (present(find_slot(keys[i]))) continue;
    if (current_ + size > capacity_) continue;  // no self-eviction in era 3
    Entry& e = objects_.value(insert_slot(keys[i]));
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
    const Slot s = find_slot(keys[i]);
    if (!present(s)) continue;
    c.bitmap[i] = 1;
    objects_.value(s).locks++;
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
    const Slot s = find_slot(keys[i]);
    if (!present(s)) continue;
    c.bitmap[i] = 1;
    c.bytes += std::min(sizes[i], objects_.value(s).size);
  }
  c.end_ns = c.submit_ns + transfer_ns(c.bytes);
  c.num_keys = keys.size();
  return c;
}

template <class Key>
void MockL2Adapter::unlock(std::span<const Key> keys) {
  for (const Key& k : keys) {
    const Slot s = find_slot(k);
    if (present(s) && objects_.value(s).locks > 0) objects_.value(s).locks--;
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
    const Slot s = objects_.find(k);
    if (!present(s)) continue;  // locks are ignored
    remove(s);
    deleted.push_back(k);
  }
  return deleted;
}

void MockL2Adapter::bind_key_table(std::span<const trace::ObjectKey> table) {
  L2Adapter::bind_key_table(table);
  id_slot_.resize(table.size());
  for (size_t id = 0; id < table.size(); ++id) {
    const Slot s = objects_.try_emplace(table[id]).first;  // a new slot: absent, pinned below
    objects_.value(s).pinned = true;
    id_slot_[id] = s;
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
    const Slot s = find_slot(id);
    if (present(s)) remove(s);  // locks are ignored
  }
}

}  // namespace fleet::storage
