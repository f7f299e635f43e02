// ShardRouter: time windows (dependency-closed, moved counting, stacked timelines), key
// ownership (rendezvous stability, splits that keep key order and chunk-major layout), none.
#include "fleet/plan/shard_router.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

#include "fleet/trace/op_decoder.h"
#include "fleet/trace/types.h"
#include "plan_test_util.h"

namespace fleet::plan {
namespace {

using plantest::key;
using plantest::op;
using plantest::Records;
using trace::OpKind;

RouterOptions opts(ShardMode mode, int workers, double window = 1.0) {
  RouterOptions o;
  o.mode = mode;
  o.window_s = window;
  for (int i = 0; i < workers; ++i) o.worker_names.push_back("w" + std::to_string(i));
  return o;
}

// Routes one op and returns the single destination worker (time mode never fans out).
int route_one(ShardRouter& r, Records& recs, const trace::Op& o, double* shift = nullptr) {
  const auto& routes = r.route(recs.add(o));
  EXPECT_EQ(routes.size(), 1u);
  if (shift) *shift = routes.at(0).t_shift;
  return routes.at(0).worker;
}

TEST(TimeSharding, WindowsGoRoundRobin) {
  ShardRouter r(opts(ShardMode::Time, 2));
  Records recs;
  std::vector<int> got;
  for (double t : {100.0, 100.5, 101.2, 102.9, 103.0, 104.99}) {
    got.push_back(route_one(r, recs, op(OpKind::ReserveWrite, t, {key("x" + std::to_string(t))})));
  }
  // Windows relative to the first record: 0,0,1,2,3,4 -> workers 0,0,1,0,1,0.
  EXPECT_EQ(got, (std::vector<int>{0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(r.plan()[0].moved + r.plan()[1].moved, 0u);
}

TEST(TimeSharding, WriteSpanningABoundaryMovesWholeAndIsCounted) {
  ShardRouter r(opts(ShardMode::Time, 2));
  Records recs;
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 10.0, {key("a")})), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 10.9, {key("b")})), 0);
  // finish_write at t=1.3 belongs to window 1 but its write is open in window 0.
  EXPECT_EQ(route_one(r, recs, op(OpKind::FinishWrite, 11.3, {key("b")})), 0);
  // Unrelated records of window 1 are not dragged along.
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 11.4, {key("c")})), 1);
  EXPECT_EQ(route_one(r, recs, op(OpKind::FinishWrite, 11.5, {key("c")})), 1);
  // Once finished, the chunk is free: its next write follows its own window.
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 12.1, {key("b")})), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::FinishWrite, 13.2, {key("b")})), 0);  // window 3 -> moved
  EXPECT_EQ(r.plan()[0].moved, 2u);
  EXPECT_EQ(r.plan()[1].moved, 0u);
  auto j = r.plan_json();
  EXPECT_EQ(j["workers"][0]["moved"], 2);
  EXPECT_EQ(j["workers"][0]["ops"]["finish_write"], 2);
  EXPECT_EQ(j["records"], 7);
}

TEST(TimeSharding, ReadLifecycleStaysTogether) {
  ShardRouter r(opts(ShardMode::Time, 2));
  Records recs;
  std::vector<trace::ObjectKey> k = {key("r1"), key("r2")};
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 0.0, {key("z")})), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::SubmitPrefetch, 0.95, k)), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReadEnter, 1.05, k)), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReadExit, 1.10, k)), 0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::FinishRead, 1.20, k)), 0);
  // Every lock released: a later read of the same chunks starts fresh in its own window.
  EXPECT_EQ(route_one(r, recs, op(OpKind::SubmitPrefetch, 1.30, k)), 1);
  EXPECT_EQ(r.plan()[0].moved, 3u);
}

TEST(TimeSharding, StackTimelineShiftsEveryWindowToItsWorkersOwnClock) {
  auto o = opts(ShardMode::Time, 2);
  o.timeline = Timeline::Stack;
  ShardRouter r(o);
  Records recs;
  double shift = -1;
  // window 0 -> w0 slot 0; window 1 -> w1 slot 0; window 2 -> w0 slot 1; window 3 -> w1 slot 1.
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 0.0, {key("a")}), &shift), 0);
  EXPECT_DOUBLE_EQ(shift, 0.0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 1.5, {key("b")}), &shift), 1);
  EXPECT_DOUBLE_EQ(shift, 1.0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 2.5, {key("c")}), &shift), 0);
  EXPECT_DOUBLE_EQ(shift, 1.0);
  EXPECT_EQ(route_one(r, recs, op(OpKind::ReserveWrite, 3.5, {key("d")}), &shift), 1);
  EXPECT_DOUBLE_EQ(shift, 2.0);
  EXPECT_EQ(r.plan_json()["timeline"], "stack");
}

std::vector<trace::ObjectKey> keys_of(std::string_view body) {
  trace::RecordView v;
  trace::parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), v);
  trace::Op o;
  trace::decode_op(v, o);
  return o.op_keys();
}

TEST(KeySharding, SplitKeepsKeyOrderAndChunkMajorLayout) {
  ShardRouter r(opts(ShardMode::Key, 3));
  Records recs;
  std::vector<trace::ObjectKey> keys;
  for (int c = 0; c < 24; ++c)
    for (int rank = 0; rank < 2; ++rank) keys.push_back(key("chunk" + std::to_string(c), rank));
  for (auto kind : {OpKind::ReserveWrite, OpKind::SubmitPrefetch, OpKind::FinishRead}) {
    const auto& routes = r.route(recs.add(op(kind, 5.0, keys)));
    ASSERT_GT(routes.size(), 1u) << "24 chunks over 3 workers must split";
    std::vector<trace::ObjectKey> all;
    std::set<int> seen;
    for (const auto& rt : routes) {
      EXPECT_TRUE(seen.insert(rt.worker).second) << "one sub-call per owner";
      auto sub = keys_of(rt.body);
      ASSERT_FALSE(sub.empty());
      for (size_t i = 0; i < sub.size(); ++i) {
        EXPECT_EQ(r.owner_of(trace::chunk_identity_hash(sub[i].model_name, sub[i].chunk_hash)),
                  rt.worker);
        // Chunk-major: both ranks of a chunk travel together, rank 0 first.
        EXPECT_EQ(sub[i].kv_rank, static_cast<int64_t>(i % 2));
        if (i % 2) {
          EXPECT_EQ(sub[i].chunk_hash, sub[i - 1].chunk_hash);
        }
      }
      all.insert(all.end(), sub.begin(), sub.end());
    }
    // Every key exactly once, and each sub-call's keys are in the original relative order.
    std::vector<trace::ObjectKey> sorted_all = all, sorted_keys = keys;
    std::sort(sorted_all.begin(), sorted_all.end());
    std::sort(sorted_keys.begin(), sorted_keys.end());
    EXPECT_EQ(sorted_all, sorted_keys);
    for (const auto& rt : routes) {
      auto sub = keys_of(rt.body);
      size_t pos = 0;
      for (const auto& k : sub) {
        while (pos < keys.size() && !(keys[pos] == k)) ++pos;
        EXPECT_LT(pos, keys.size()) << "sub-call order differs from the original";
      }
    }
  }
  EXPECT_EQ(r.split_calls(), 3u);
}

// Workers that read the trace get each part as the original frame and a key mask (protocol 6):
// the keys the mask keeps are exactly the keys of the part the router would have re-encoded.
TEST(KeySharding, MaskedPartsKeepTheKeysOfTheReEncodedParts) {
  RouterOptions masked_opts = opts(ShardMode::Key, 3);
  masked_opts.encode_split_parts = false;
  ShardRouter encoded(opts(ShardMode::Key, 3)), masked(masked_opts);
  Records recs;
  std::vector<trace::ObjectKey> keys;
  for (int c = 0; c < 21; ++c) keys.push_back(key("m" + std::to_string(c), c % 2));
  for (auto kind : {OpKind::ReserveWrite, OpKind::SubmitPrefetch, OpKind::ReadEnter}) {
    const auto& rec = recs.add(op(kind, 2.0, keys));
    std::map<int, std::vector<trace::ObjectKey>> want;
    for (const auto& rt : encoded.route(rec)) want[rt.worker] = keys_of(rt.body);
    const auto& routes = masked.route(rec);
    ASSERT_EQ(routes.size(), want.size());
    for (const auto& rt : routes) {
      EXPECT_TRUE(rt.original);
      EXPECT_EQ(rt.body.size(), rec.body_size) << "the part is the record's own frame";
      ASSERT_EQ(rt.mask_keys, keys.size());
      ASSERT_EQ(rt.key_mask.size(), (keys.size() + 7) / 8);
      std::vector<trace::ObjectKey> kept;
      for (size_t i = 0; i < keys.size(); ++i)
        if ((static_cast<uint8_t>(rt.key_mask[i / 8]) >> (i % 8)) & 1) kept.push_back(keys[i]);
      EXPECT_EQ(kept, want[rt.worker]) << "worker " << rt.worker;
    }
  }
  EXPECT_EQ(masked.split_calls(), encoded.split_calls());
}

TEST(KeySharding, PrefetchSplitKeepsTheRestOfTheSpec) {
  ShardRouter r(opts(ShardMode::Key, 4));
  Records recs;
  std::vector<trace::ObjectKey> keys;
  for (int c = 0; c < 16; ++c) keys.push_back(key("p" + std::to_string(c)));
  trace::Op o = op(OpKind::SubmitPrefetch, 1.0, keys);
  o.spec.num_kv_readers = 3;
  o.external_request_id = "req-7";
  const auto& routes = r.route(recs.add(o));
  ASSERT_GT(routes.size(), 1u);
  for (const auto& rt : routes) {
    trace::RecordView v;
    trace::parse_record(reinterpret_cast<const uint8_t*>(rt.body.data()), rt.body.size(), v);
    trace::Op sub;
    trace::decode_op(v, sub);
    EXPECT_EQ(sub.kind, OpKind::SubmitPrefetch);
    EXPECT_EQ(sub.spec.num_kv_readers, 3);
    EXPECT_EQ(sub.external_request_id, "req-7");
    EXPECT_EQ(sub.spec.group_layouts, o.spec.group_layouts);
    EXPECT_DOUBLE_EQ(sub.t_mono, 1.0);
  }
}

// A worker that routes itself replays the router's decode instead of decoding again: it must be
// the record's own decode (a split call's whole key list, the rest of the spec), once.
TEST(KeySharding, TheRoutersDecodeIsHandedOverOnce) {
  ShardRouter r(opts(ShardMode::Key, 4));
  Records recs;
  std::vector<trace::ObjectKey> keys;
  for (int c = 0; c < 16; ++c) keys.push_back(key("d" + std::to_string(c)));
  trace::Op o = op(OpKind::SubmitPrefetch, 2.0, keys);
  o.external_request_id = "req-9";
  o.spec.num_kv_readers = 3;
  o.spec.policy = trace::TrimPolicy::Sparse;
  o.spec.attn.num_chunks_in_sw = {4, 2};
  o.spec.attn.world_size = 2;
  const trace::RecordView& rec = recs.add(o);
  ASSERT_GT(r.route(rec).size(), 1u) << "a split call";
  trace::Op own;
  trace::decode_op(rec, own);
  trace::Op taken;
  ASSERT_TRUE(r.take_decoded(taken));
  EXPECT_EQ(taken.kind, OpKind::SubmitPrefetch);
  EXPECT_EQ(taken.op_keys(), own.op_keys());
  EXPECT_EQ(taken.op_keys().size(), 16u);
  EXPECT_EQ(taken.external_request_id, "req-9");
  EXPECT_EQ(taken.spec, own.spec);
  EXPECT_EQ(taken.spec.attn.world_size, 2);
  EXPECT_EQ(taken.spec.num_kv_readers, 3);
  EXPECT_DOUBLE_EQ(taken.t_mono, 2.0);
  EXPECT_DOUBLE_EQ(taken.t_wall, own.t_wall);
  trace::Op again;
  EXPECT_FALSE(r.take_decoded(again)) << "taken already";
  // The next record is decoded into what the router got back.
  ASSERT_EQ(r.route(recs.add(op(OpKind::ReadEnter, 3.0, {key("e")}))).size(), 1u);
  ASSERT_TRUE(r.take_decoded(again));
  EXPECT_EQ(again.kind, OpKind::ReadEnter);
  EXPECT_EQ(again.keys, (std::vector<trace::ObjectKey>{key("e")}));
  // A write's layout and mode come over too (Op's swap exchanges every member).
  trace::Op w = op(OpKind::ReserveWrite, 3.5, {key("g")});
  w.mode = trace::WriteMode::Update;
  const trace::RecordView& wrec = recs.add(w);
  ASSERT_EQ(r.route(wrec).size(), 1u);
  trace::Op wown;
  trace::decode_op(wrec, wown);
  ASSERT_TRUE(r.take_decoded(again));
  EXPECT_EQ(again.kind, OpKind::ReserveWrite);
  EXPECT_EQ(again.layout, wown.layout);
  EXPECT_EQ(again.mode, trace::WriteMode::Update);
  EXPECT_EQ(again.keys, wown.keys);
  // Time sharding only scans: nothing to hand over.
  ShardRouter by_time(opts(ShardMode::Time, 2));
  by_time.route(recs.add(op(OpKind::ReserveWrite, 4.0, {key("f")})));
  EXPECT_FALSE(by_time.take_decoded(again));
}

TEST(KeySharding, EachChunkHasOneOwnerAcrossRecords) {
  ShardRouter r(opts(ShardMode::Key, 4));
  Records recs;
  std::map<std::string, std::set<int>> owners;
  for (int i = 0; i < 200; ++i) {
    std::vector<trace::ObjectKey> keys;
    for (int c = i % 7; c < i % 7 + 5; ++c) keys.push_back(key("c" + std::to_string(c % 9)));
    auto kind = i % 2 ? OpKind::FinishWrite : OpKind::ReserveWrite;
    for (const auto& rt : r.route(recs.add(op(kind, i * 0.01, keys)))) {
      for (const auto& k : keys_of(rt.body)) owners[std::string(k.chunk_hash)].insert(rt.worker);
    }
  }
  EXPECT_EQ(owners.size(), 9u);
  for (const auto& [chunk, ws] : owners) EXPECT_EQ(ws.size(), 1u) << chunk;
}

TEST(KeySharding, RendezvousMovesOnlyTheNewWorkersShareWhenOneIsAdded) {
  ShardRouter four(opts(ShardMode::Key, 4));
  ShardRouter five(opts(ShardMode::Key, 5));
  const int n = 20000;
  int moved = 0;
  std::vector<int> per_worker(4);
  for (int i = 0; i < n; ++i) {
    uint64_t id = trace::chunk_identity_hash("model", "chunk-" + std::to_string(i));
    int a = four.owner_of(id), b = five.owner_of(id);
    ++per_worker[static_cast<size_t>(a)];
    if (a != b) {
      ++moved;
      EXPECT_EQ(b, 4) << "a chunk may only move to the new worker";
    }
  }
  EXPECT_NEAR(static_cast<double>(moved) / n, 1.0 / 5, 0.02);
  for (int c : per_worker) EXPECT_NEAR(static_cast<double>(c) / n, 0.25, 0.02);
}

TEST(KeySharding, RemovingAWorkerMovesOnlyItsChunks) {
  auto all = opts(ShardMode::Key, 4);
  auto fewer = all;
  fewer.worker_names.erase(fewer.worker_names.begin() + 2);  // w0 w1 w3
  ShardRouter a(all), b(fewer);
  for (int i = 0; i < 5000; ++i) {
    uint64_t id = trace::chunk_identity_hash("model", "k" + std::to_string(i));
    const std::string& before = all.worker_names[static_cast<size_t>(a.owner_of(id))];
    const std::string& after = fewer.worker_names[static_cast<size_t>(b.owner_of(id))];
    if (before != "w2") {
      EXPECT_EQ(before, after);
    }
  }
}

// Counted once per record, reported for every worker alike.
TEST(NoneSharding, EveryWorkersPlanRowCountsEveryRecord) {
  ShardRouter r(opts(ShardMode::None, 3));
  Records recs;
  r.route(recs.add(op(OpKind::ReserveWrite, 0.0, {key("a")})));
  r.route(recs.add(op(OpKind::FinishWrite, 0.5, {key("a")})));
  r.route(recs.add(op(OpKind::ReserveWrite, 2.2, {key("b")})));
  const auto j = r.plan_json();
  ASSERT_EQ(j["workers"].size(), 3u);
  for (const auto& w : j["workers"]) {
    EXPECT_EQ(w["records"], 3);
    EXPECT_EQ(w["peak_records_per_s"], 2);
    EXPECT_EQ(w["ops"]["reserve_write"], 2);
    EXPECT_EQ(w["skew"], 1.0);
  }
  EXPECT_EQ(r.plan()[2].records, 3u);
}

TEST(PerSecondCounts, PeakOverDenseEarlyAndFarSeconds) {
  PerSecondCounts c;
  EXPECT_EQ(c.peak(), 0u);
  c.add(0);
  c.add(3);
  c.add(3);
  c.add(-1);  // a record before the first one
  c.add(-1);
  c.add(-1);
  EXPECT_EQ(c.peak(), 3u);
  for (int i = 0; i < 4; ++i) c.add(int64_t{1} << 40);  // a hostile timestamp: one map entry
  EXPECT_EQ(c.peak(), 4u);
}

TEST(NoneSharding, EveryWorkerGetsEveryRecord) {
  ShardRouter r(opts(ShardMode::None, 3));
  Records recs;
  const auto& routes = r.route(recs.add(op(OpKind::ReserveWrite, 0.0, {key("a"), key("b")})));
  ASSERT_EQ(routes.size(), 3u);
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(routes[static_cast<size_t>(w)].worker, w);
    EXPECT_EQ(r.plan()[static_cast<size_t>(w)].records, 1u);
  }
}

// The coordinator reads with deferred args checks: a record the router's own walk finds
// malformed throws MalformedRecord and leaves no trace in the plan or in later routing.
TEST(Router, MalformedRecordLeavesNoTraceInThePlan) {
  for (ShardMode mode : {ShardMode::None, ShardMode::Time, ShardMode::Key}) {
    SCOPED_TRACE(std::string(shard_mode_name(mode)));
    ShardRouter with_bad(opts(mode, 2)), clean(opts(mode, 2));
    Records recs;
    std::deque<std::string> bad_bodies;
    std::deque<trace::RecordView> bad_views;
    int thrown = 0;
    for (int i = 0; i < 12; ++i) {
      const double t = 100.0 + 0.4 * i;
      auto o = op(i % 2 ? OpKind::FinishWrite : OpKind::ReserveWrite, t,
                  {key("c" + std::to_string(i / 2)), key("d" + std::to_string(i))});
      if (i % 4 == 3) {
        // A byte after the record: msgspec refuses the frame, but only a walk of the args
        // (deferred by the reader) reaches it.
        bad_bodies.push_back(trace::encode_record_body(o, trace::Era::Three) + '\xc0');
        const std::string& b = bad_bodies.back();
        bad_views.emplace_back();
        trace::parse_record(reinterpret_cast<const uint8_t*>(b.data()), b.size(), bad_views.back(),
                            {}, /*defer_args_check=*/true);
        EXPECT_THROW(with_bad.route(bad_views.back()), trace::MalformedRecord);
        ++thrown;
        continue;
      }
      const auto& rec = recs.add(o);
      auto a = with_bad.route(rec);
      auto b = clean.route(rec);
      ASSERT_EQ(a.size(), b.size());
      for (size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].worker, b[k].worker);
        EXPECT_EQ(a[k].body, b[k].body);
      }
    }
    EXPECT_EQ(thrown, 3);
    EXPECT_EQ(with_bad.plan_json(), clean.plan_json());
    EXPECT_EQ(with_bad.plan_json()["records"], 9);
  }
}

}  // namespace
}  // namespace fleet::plan
