// Shared helpers for the storage engine tests: keys, layouts and the worked-example config of
// docs/era3-reference.md §8 (non-lazy 16 KiB L1, 4096-byte alignment, LRU, no adapters).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fleet/engine/counters_json.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/eviction_policy.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/engine/l2_eviction.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "fleet/engine/prefetch_controller.h"
#include "fleet/engine/storage_manager.h"
#include "fleet/engine/store_controller.h"
#include "fleet/util/clock.h"

namespace fleet::storage::testing {

inline trace::ObjectKey K(const std::string& hash, int64_t rank = 0, int64_t group = 0,
                          const std::string& model = "m") {
  trace::ObjectKey k;
  k.chunk_hash = hash;
  k.model_name = model;
  k.kv_rank = rank;
  k.object_group_id = group;
  return k;
}

inline KeyList Keys(std::initializer_list<const char*> names) {
  KeyList out;
  for (const char* n : names) out.push_back(K(n));
  return out;
}

// shapes [[2, n]] float16: 4n logical bytes.
inline trace::MemoryLayout Layout(int64_t n) {
  trace::MemoryLayout l;
  l.shapes = {{2, n}};
  l.dtypes = {trace::DType::Float16};
  return l;
}
inline trace::MemoryLayout Layout4000() { return Layout(1000); }  // footprint 4096
inline trace::MemoryLayout Layout4096() { return Layout(1024); }

// The engine a test's config builds. A refused config is the test's own mistake: it fails the
// test here, saying why.
inline std::unique_ptr<StorageManager> Open(const EngineConfig& cfg, util::Clock& clock) {
  Result<std::unique_ptr<StorageManager>> sm = StorageManager::open(cfg, clock);
  if (!sm) throw std::runtime_error("StorageManager::open: " + sm.status().message());
  return std::move(sm).value();
}

inline EngineConfig ExampleConfig(uint64_t l1_bytes = 16384, double ratio = 0.2) {
  EngineConfig c;
  c.l1_size_in_bytes = l1_bytes;
  c.l1_use_lazy = false;
  c.eviction_policy = "LRU";
  c.eviction_ratio = ratio;
  return c;
}

inline nlohmann::json MockJson(double size_gb, double bw_gb) {
  return {{"type", "mock"}, {"max_size_gb", size_gb}, {"mock_bandwidth_gb", bw_gb}};
}

inline trace::PrefetchSpec Spec(KeyList keys, trace::TrimPolicy policy = trace::TrimPolicy::Prefix,
                                int64_t readers = 1, std::vector<int64_t> windows = {-1},
                                int64_t world = 1, trace::MemoryLayout layout = Layout4000()) {
  trace::PrefetchSpec s;
  s.keys = std::move(keys);
  s.policy = policy;
  s.num_kv_readers = readers;
  s.attn.num_chunks_in_sw = windows;
  s.attn.world_size = world;
  for (size_t g = 0; g < windows.size(); ++g) s.group_layouts[static_cast<int64_t>(g)] = layout;
  return s;
}

// Writes keys into L1 as SM writes do (reserve new + finish).
inline void Put(StorageManager& sm, const KeyList& keys,
                const trace::MemoryLayout& layout = Layout4000()) {
  sm.reserve_write_keys(keys, layout, trace::WriteMode::New);
  sm.finish_write_keys(keys);
}

inline int64_t ReadCount(StorageManager& sm, const trace::ObjectKey& k) {
  const L1Object* o = sm.l1().find(k);
  return o ? o->read_lock.count() : -1;
}

inline bool ReadLocked(StorageManager& sm, const trace::ObjectKey& k) {
  const L1Object* o = sm.l1().find(k);
  return o && o->read_lock.is_locked(sm.l1().now_ms());
}

inline void Advance(StorageManager& sm, util::VirtualClock& clock, int64_t dt_ns) {
  clock.advance_by(dt_ns);
  sm.run_until(clock.now_ns());
}

// Key layout j*(G*W) + g*W + r for `chunks` chunks.
inline KeyList GridKeys(size_t chunks, size_t groups, size_t world) {
  KeyList out;
  for (size_t j = 0; j < chunks; ++j)
    for (size_t g = 0; g < groups; ++g)
      for (size_t r = 0; r < world; ++r)
        out.push_back(K("c" + std::to_string(j), static_cast<int64_t>(r), static_cast<int64_t>(g)));
  return out;
}

inline std::vector<size_t> Idx(std::initializer_list<size_t> v) { return v; }

// Worked example 8.5's setup (docs/era3-reference.md §8): 16-slot L1, one mock (1 GB, 1 GB/s),
// L1 holds k0,k1, the mock holds k0..k4.
struct Example85 {
  util::VirtualClock clock;
  std::unique_ptr<StorageManager> sm;
  KeyList k = Keys({"k0", "k1", "k2", "k3", "k4", "k5"});

  explicit Example85(uint64_t l1_bytes = 65536) {
    EngineConfig cfg = ExampleConfig(l1_bytes);
    add_l2_adapter(cfg, MockJson(1.0, 1.0));
    sm = Open(cfg, clock);
    // k2..k4 go to the mock through the store controller, then leave L1.
    Put(*sm, {k[2], k[3], k[4]}, Layout4096());
    Advance(*sm, clock, 100'000);
    EXPECT_TRUE(sm->stores_idle());
    sm->delete_l1_keys({k[2], k[3], k[4]});
    Put(*sm, {k[0], k[1]}, Layout4096());
    Advance(*sm, clock, 100'000);
    auto& mock = static_cast<MockL2Adapter&>(sm->adapter(0));
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(mock.contains(k[i]));
    EXPECT_EQ(sm->eviction_policy().order(), KeyList({k[1], k[0]}));
  }
  MockL2Adapter& mock() { return static_cast<MockL2Adapter&>(sm->adapter(0)); }
  trace::PrefetchSpec spec() {
    return Spec(k, trace::TrimPolicy::Prefix, 1, {-1}, 1, Layout4096());
  }
};

}  // namespace fleet::storage::testing
