// Keys by id (l2_adapter.h): the mock bound to a key table and driven by ids answers exactly as
// the mock driven by ObjectKeys (a random mix of every call, a capacity that refuses stores,
// deletes of locked and stored keys, keys stored before the bind as --prepare-l2 does), and the
// default calls hand an adapter the table's keys.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fleet/engine/mock_l2_adapter.h"
#include "fleet/util/clock.h"

namespace fleet::storage {
namespace {

trace::ObjectKey key_n(uint32_t n) {
  trace::ObjectKey k;
  std::string h(32, '\x22');
  h[0] = static_cast<char>(n);
  h[1] = static_cast<char>(n >> 8);
  k.chunk_hash = h;
  k.model_name = "m";
  return k;
}

struct Driven {
  util::VirtualClock clock;
  MockL2Adapter mock{MockL2Config{1.0 / 1024, 1.0}};  // 1 MiB, 1 GiB/s
  std::vector<L2Completion> done;
  Driven() {
    L2AdapterContext ctx;
    ctx.clock = &clock;
    ctx.synchronous = true;
    ctx.deliver = [this](int64_t, L2Completion c) { done.push_back(std::move(c)); };
    mock.attach(std::move(ctx));
  }
};

void expect_same(const L2Completion& a, const L2Completion& b, int step) {
  EXPECT_EQ(a.task_id, b.task_id) << "step " << step;
  EXPECT_EQ(a.kind, b.kind) << "step " << step;
  EXPECT_EQ(a.success, b.success) << "step " << step;
  EXPECT_EQ(a.bytes, b.bytes) << "step " << step;
  EXPECT_EQ(a.bitmap, b.bitmap) << "step " << step;
  EXPECT_EQ(a.end_ns, b.end_ns) << "step " << step;
  EXPECT_EQ(a.num_keys, b.num_keys) << "step " << step;
}

TEST(MockKeyIds, IdsAnswerAsKeysDo) {
  std::vector<trace::ObjectKey> table;
  for (uint32_t n = 0; n < 40; ++n) table.push_back(key_n(n));
  Driven by_key, by_id;
  // Stored before the bind, by key (as --prepare-l2 seeds), plus a key outside the table.
  for (Driven* d : {&by_key, &by_id}) {
    d->mock.submit_store({table[3], table[7], key_n(99)}, {1000, 2000, 3000});
  }
  by_id.mock.bind_key_table(table);
  std::mt19937 rng(7);
  uint64_t stored = 0, hits = 0, deleted = 0;
  for (int step = 0; step < 4000; ++step) {
    std::vector<uint32_t> ids;
    const size_t n = 1 + rng() % 4;
    for (size_t i = 0; i < n; ++i) ids.push_back(rng() % table.size());
    std::vector<trace::ObjectKey> keys;
    for (uint32_t id : ids) keys.push_back(table[id]);
    std::vector<uint64_t> sizes;
    for (size_t i = 0; i < n; ++i) sizes.push_back(20000 + rng() % 200000);
    switch (rng() % 5) {
      case 0:
        by_key.mock.submit_store(keys, sizes);
        by_id.mock.submit_store_ids(ids, sizes);
        break;
      case 1:
        by_key.mock.submit_lookup_and_lock(keys);
        by_id.mock.submit_lookup_and_lock_ids(ids);
        break;
      case 2:
        by_key.mock.submit_load(keys, sizes);
        by_id.mock.submit_load_ids(ids, sizes);
        break;
      case 3:
        by_key.mock.submit_unlock(keys);
        by_id.mock.submit_unlock_ids(ids);
        break;
      default:
        for (const auto& k : keys) deleted += by_key.mock.contains(k);
        by_key.mock.delete_keys(keys);
        by_id.mock.delete_ids(ids);
        break;
    }
    ASSERT_EQ(by_key.done.size(), by_id.done.size()) << "step " << step;
    for (size_t i = 0; i < by_key.done.size(); ++i) {
      expect_same(by_key.done[i], by_id.done[i], step);
      if (by_key.done[i].kind == L2OpKind::Store) stored += by_key.done[i].bytes;
      if (by_key.done[i].kind == L2OpKind::Lookup)
        for (uint8_t b : by_key.done[i].bitmap) hits += b;
    }
    by_key.done.clear();
    by_id.done.clear();
    EXPECT_EQ(by_key.mock.usage().used_bytes, by_id.mock.usage().used_bytes) << "step " << step;
  }
  for (uint32_t n = 0; n < 100; ++n) {
    EXPECT_EQ(by_key.mock.contains(key_n(n)), by_id.mock.contains(key_n(n))) << n;
    EXPECT_EQ(by_key.mock.lock_count(key_n(n)), by_id.mock.lock_count(key_n(n))) << n;
  }
  // The mix exercised what it is for: stores, hits, deletes, and a full store refusing.
  EXPECT_GT(stored, 1u << 20);
  EXPECT_GT(hits, 100u);
  EXPECT_GT(deleted, 100u);
  // A deleted pinned key is absent to the key path too, and stored again by it.
  by_id.mock.delete_ids(std::vector<uint32_t>{5});
  EXPECT_FALSE(by_id.mock.contains(table[5]));
  by_id.mock.submit_store({table[5]}, {10});
  EXPECT_TRUE(by_id.mock.contains(table[5]));
}

TEST(MockKeyIds, AnIdOutsideTheTableIsACallerBug) {
  Driven d;
  const std::vector<trace::ObjectKey> table{key_n(1)};
  d.mock.bind_key_table(table);
  EXPECT_THROW(d.mock.submit_lookup_and_lock_ids(std::vector<uint32_t>{1}), std::logic_error);
}

TEST(MockKeyIds, ASecondBindKeepsTheObjectsUnderTheirKeys) {
  Driven d;
  const std::vector<trace::ObjectKey> first{key_n(1), key_n(2), key_n(3)};
  d.mock.bind_key_table(first);
  d.mock.submit_store_ids(std::vector<uint32_t>{1}, std::vector<uint64_t>{700});
  d.mock.submit_lookup_and_lock_ids(std::vector<uint32_t>{1});
  // key_n(2) at another id, key_n(4) new: the object and its lock follow the key.
  const std::vector<trace::ObjectKey> second{key_n(4), key_n(2)};
  d.mock.bind_key_table(second);
  d.done.clear();
  d.mock.submit_lookup_and_lock_ids(std::vector<uint32_t>{0, 1});
  ASSERT_EQ(d.done.size(), 1u);
  EXPECT_EQ(d.done[0].bitmap, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(d.mock.lock_count(key_n(2)), 2);
  EXPECT_FALSE(d.mock.contains(key_n(1)));
  EXPECT_EQ(d.mock.usage().used_bytes, 700u);
  EXPECT_THROW(d.mock.submit_unlock_ids(std::vector<uint32_t>{2}), std::logic_error);
}

// An adapter that records what the ObjectKey calls receive: the defaults' keys.
class Recording final : public L2Adapter {
 public:
  std::string_view type() const override { return "recording"; }
  uint64_t submit_store(std::vector<trace::ObjectKey> k, std::vector<uint64_t> s) override {
    keys.push_back(std::move(k));
    sizes.push_back(std::move(s));
    return 1;
  }
  uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> k) override {
    keys.push_back(std::move(k));
    return 2;
  }
  uint64_t submit_load(std::vector<trace::ObjectKey> k, std::vector<uint64_t> s) override {
    keys.push_back(std::move(k));
    sizes.push_back(std::move(s));
    return 3;
  }
  void submit_unlock(std::vector<trace::ObjectKey> k) override { keys.push_back(std::move(k)); }
  std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>& k) override {
    keys.push_back(k);
    return {};
  }
  std::vector<std::vector<trace::ObjectKey>> keys;
  std::vector<std::vector<uint64_t>> sizes;
};

TEST(MockKeyIds, DefaultsHandTheTablesKeys) {
  const std::vector<trace::ObjectKey> table{key_n(10), key_n(11), key_n(12)};
  Recording r;
  r.bind_key_table(table);
  const std::vector<uint32_t> ids{2, 0};
  const std::vector<uint64_t> sizes{5, 6};
  EXPECT_EQ(r.submit_store_ids(ids, sizes), 1u);
  EXPECT_EQ(r.submit_lookup_and_lock_ids(ids), 2u);
  EXPECT_EQ(r.submit_load_ids(ids, sizes), 3u);
  r.submit_unlock_ids(ids);
  r.delete_ids(ids);
  ASSERT_EQ(r.keys.size(), 5u);
  for (const auto& k : r.keys) EXPECT_EQ(k, (std::vector<trace::ObjectKey>{table[2], table[0]}));
  ASSERT_EQ(r.sizes.size(), 2u);
  EXPECT_EQ(r.sizes[0], sizes);
  EXPECT_THROW(r.submit_unlock_ids(std::vector<uint32_t>{3}), std::logic_error);
}

}  // namespace
}  // namespace fleet::storage
