#include "fleet/engine/mock_l2_adapter.h"

#include <algorithm>
#include <cmath>

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
  const auto s = objects_.find(k);
  return s == Objects::npos ? 0 : objects_.value(s).locks;
}

uint64_t MockL2Adapter::submit_store(std::vector<trace::ObjectKey> keys,
                                     std::vector<uint64_t> sizes) {
  const uint64_t id = next_task_++;
  const int64_t now = ctx_.clock->now_ns();
  uint64_t stored = 0;
  std::vector<uint8_t> now_stored(ctx_.report_keys ? keys.size() : 0, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t size = sizes[i];
    if (size > capacity_) continue;
    if (objects_.find(keys[i]) != Objects::npos) continue;
    if (current_ + size > capacity_) continue;  // no self-eviction in era 3
    objects_.value(objects_.try_emplace(keys[i]).first) = Entry{size, 0};
    current_ += size;
    stored += size;
    if (ctx_.report_keys) now_stored[i] = 1;  // LMCache notifies only the keys it stored
  }
  L2Completion c;
  c.num_keys = keys.size();
  if (ctx_.report_keys) {
    c.keys = std::move(keys);
    c.bitmap = std::move(now_stored);
  }
  c.kind = L2OpKind::Store;
  c.task_id = id;
  c.bytes = stored;
  c.submit_ns = now;
  c.end_ns = now + transfer_ns(stored);
  ctx_.deliver(c.end_ns, std::move(c));
  return id;
}

uint64_t MockL2Adapter::submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) {
  const uint64_t id = next_task_++;
  const int64_t now = ctx_.clock->now_ns();
  L2Completion c;
  c.kind = L2OpKind::Lookup;
  c.task_id = id;
  c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto s = objects_.find(keys[i]);
    if (s == Objects::npos) continue;
    c.bitmap[i] = 1;
    objects_.value(s).locks++;
  }
  c.submit_ns = c.end_ns = now;
  c.num_keys = keys.size();
  ctx_.deliver(now, std::move(c));
  return id;
}

uint64_t MockL2Adapter::submit_load(std::vector<trace::ObjectKey> keys,
                                    std::vector<uint64_t> sizes) {
  const uint64_t id = next_task_++;
  const int64_t now = ctx_.clock->now_ns();
  L2Completion c;
  c.kind = L2OpKind::Load;
  c.task_id = id;
  c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto s = objects_.find(keys[i]);
    if (s == Objects::npos) continue;
    c.bitmap[i] = 1;
    c.bytes += std::min(sizes[i], objects_.value(s).size);
  }
  c.submit_ns = now;
  c.end_ns = now + transfer_ns(c.bytes);
  c.num_keys = keys.size();
  if (ctx_.report_keys) c.keys = std::move(keys);
  ctx_.deliver(c.end_ns, std::move(c));
  return id;
}

void MockL2Adapter::submit_unlock(std::vector<trace::ObjectKey> keys) {
  for (const auto& k : keys) {
    const auto s = objects_.find(k);
    if (s != Objects::npos && objects_.value(s).locks > 0) objects_.value(s).locks--;
  }
}

std::vector<trace::ObjectKey> MockL2Adapter::delete_keys(
    const std::vector<trace::ObjectKey>& keys) {
  std::vector<trace::ObjectKey> deleted;
  for (const auto& k : keys) {
    const auto s = objects_.find(k);
    if (s == Objects::npos) continue;  // locks are ignored
    current_ -= std::min(current_, objects_.value(s).size);
    objects_.erase(s);
    deleted.push_back(k);
  }
  return deleted;
}

}  // namespace fleet::storage
