#include "fleet/engine/fault_inject_l2_adapter.h"

#include <cmath>
#include <set>

#include "fleet/engine/blake2b.h"
#include "fleet/engine/json_options.h"
#include "fleet/trace/msgpack_value.h"

namespace fleet::storage {

namespace {
// Lowercase hex of raw bytes: the trace library's helper.
std::string hex(std::string_view bytes) { return trace::to_hex(bytes); }
}  // namespace

namespace {
// The list at j[field] (absent: none), each element checked by `fits` and converted by `as`.
template <class T, class Fits>
void read_list(const nlohmann::json& j, const char* field, JsonOptions& o, const char* what,
               Fits fits, std::vector<T>& out) {
  if (!o.ok() || !j.contains(field)) return;
  const auto& g = j[field];
  if (!g.is_array()) return o.fail(field, "must be a list");
  for (const auto& v : g) {
    if (!fits(v)) return o.fail(field, what);
    out.push_back(v.get<T>());
  }
}
}  // namespace

Result<FaultInjectConfig> FaultInjectConfig::from_json(const nlohmann::json& j) {
  FaultInjectConfig c;
  JsonOptions o(j, "fault_inject");
  if (!j.contains("inner") || !j["inner"].is_object())
    o.fail("inner", "must be an adapter spec object");
  else if (!j["inner"].contains("type") || !j["inner"]["type"].is_string())
    o.fail("inner", "adapter spec must include a string 'type'");
  else
    c.inner = j["inner"];
  o.optional_number("rate", c.rate, 0.0, 1.0);
  o.optional_int("seed", c.seed, INT64_MIN);
  read_list(
      j, "gap_indices", o, "must be non-negative integers",
      [](const nlohmann::json& v) { return v.is_number_integer() && v.get<int64_t>() >= 0; },
      c.gap_indices);
  read_list(
      j, "gap_tail_ratios", o, "must be floats in [0, 1]",
      [](const nlohmann::json& v) {
        return v.is_number() && !v.is_boolean() && v.get<double>() >= 0 && v.get<double>() <= 1;
      },
      c.gap_tail_ratios);
  if (!o.ok()) return o.status();
  return c;
}

FaultInjectL2Adapter::FaultInjectL2Adapter(const FaultInjectConfig& cfg,
                                           std::unique_ptr<L2Adapter> inner)
    : cfg_(cfg), inner_(std::move(inner)) {}

bool FaultInjectL2Adapter::should_drop_key(const trace::ObjectKey& k) const {
  if (cfg_.rate <= 0.0) return false;
  std::string ident = std::to_string(cfg_.seed) + ":" + hex(k.chunk_hash) + ":" + k.model_name +
                      ":" + std::to_string(k.kv_rank) + ":" + std::to_string(k.object_group_id) +
                      ":" + k.cache_salt;
  std::string h = blake2b(ident, 8);
  uint64_t v = 0;
  for (unsigned char c : h) v = (v << 8) | c;  // int.from_bytes(h, "big")
  return v % 1'000'000 < static_cast<uint64_t>(cfg_.rate * 1'000'000);
}

std::vector<size_t> FaultInjectL2Adapter::drop_positions(
    const std::vector<trace::ObjectKey>& keys) const {
  const size_t n = keys.size();
  std::set<size_t> fixed;
  if (n > 0) {
    for (double r : cfg_.gap_tail_ratios)  // Python round(): ties to even
      fixed.insert(static_cast<size_t>(std::nearbyint((1.0 - r) * static_cast<double>(n - 1))));
  }
  for (int64_t i : cfg_.gap_indices) fixed.insert(static_cast<size_t>(i));
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (fixed.count(i) || should_drop_key(keys[i])) out.push_back(i);
  return out;
}

void FaultInjectL2Adapter::attach(L2AdapterContext ctx) {
  ctx_ = ctx;
  L2AdapterContext inner_ctx = ctx;
  inner_ctx.deliver = [this](int64_t at, L2Completion c) {
    if (c.kind == L2OpKind::Load) {
      std::vector<trace::ObjectKey> keys;
      {
        std::lock_guard<std::mutex> g(mu_);
        auto it = load_keys_.find(c.task_id);
        if (it == load_keys_.end()) {  // delivered inside submit_load, before we recorded keys
          early_[c.task_id] = {at, std::move(c)};
          return;
        }
        keys = std::move(it->second);
        load_keys_.erase(it);
      }
      for (size_t i : drop_positions(keys))
        if (i < c.bitmap.size()) c.bitmap[i] = 0;
    }
    ctx_.deliver(at, std::move(c));
  };
  inner_->attach(std::move(inner_ctx));
}

uint64_t FaultInjectL2Adapter::submit_load(std::vector<trace::ObjectKey> keys,
                                           std::vector<uint64_t> sizes) {
  std::vector<trace::ObjectKey> copy = keys;
  uint64_t id = inner_->submit_load(std::move(keys), std::move(sizes));
  std::pair<int64_t, L2Completion> early;
  bool have_early = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = early_.find(id);
    if (it != early_.end()) {
      early = std::move(it->second);
      early_.erase(it);
      have_early = true;
    } else {
      load_keys_[id] = std::move(copy);
    }
  }
  if (have_early) {
    for (size_t i : drop_positions(copy))
      if (i < early.second.bitmap.size()) early.second.bitmap[i] = 0;
    ctx_.deliver(early.first, std::move(early.second));
  }
  return id;
}

}  // namespace fleet::storage
