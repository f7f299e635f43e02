#include "fleet/engine/fault_inject_l2_adapter.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include "fleet/engine/blake2b.h"
#include "fleet/engine/json_options.h"
#include "fleet/trace/msgpack_value.h"

namespace fleet::storage {

namespace {
// Lowercase hex of raw bytes: the trace library's helper.
std::string hex(std::string_view bytes) { return trace::to_hex(bytes); }
}  // namespace

FaultInjectConfig FaultInjectConfig::from_json(const nlohmann::json& j) {
  FaultInjectConfig c;
  if (!j.contains("inner") || !j["inner"].is_object())
    throw std::invalid_argument("fault_inject: 'inner' must be an adapter spec object");
  if (!j["inner"].contains("type") || !j["inner"]["type"].is_string())
    throw std::invalid_argument("fault_inject: 'inner' adapter spec must include a string 'type'");
  c.inner = j["inner"];
  JsonOptions o(j, "fault_inject");
  o.optional_number("rate", c.rate, 0.0, 1.0);
  o.optional_int("seed", c.seed, INT64_MIN);
  if (j.contains("gap_indices")) {
    const auto& g = j["gap_indices"];
    if (!g.is_array()) throw std::invalid_argument("fault_inject: 'gap_indices' must be a list");
    for (const auto& v : g) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0)
        throw std::invalid_argument("fault_inject: 'gap_indices' must be non-negative integers");
      c.gap_indices.push_back(v.get<int64_t>());
    }
  }
  if (j.contains("gap_tail_ratios")) {
    const auto& g = j["gap_tail_ratios"];
    if (!g.is_array())
      throw std::invalid_argument("fault_inject: 'gap_tail_ratios' must be a list");
    for (const auto& v : g) {
      if (!v.is_number() || v.is_boolean() || v.get<double>() < 0 || v.get<double>() > 1)
        throw std::invalid_argument("fault_inject: 'gap_tail_ratios' must be floats in [0, 1]");
      c.gap_tail_ratios.push_back(v.get<double>());
    }
  }
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
