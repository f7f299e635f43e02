// Which records of a trace become L1 accesses, of which key and how many bytes
// (docs/lct.md § lct mrc), on a small hand-written trace.
#include "mrc/mrc_stream.h"

#include <gtest/gtest.h>

#include "../trace/trace_test_bytes.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/trace_writer.h"
#include "lct_run.h"

namespace fleet::mrc {
namespace {

using trace::DType;
using trace::MemoryLayout;
using trace::ObjectKey;
using trace::Op;
using trace::OpKind;

ObjectKey key(const char* hash, int64_t group = 0) {
  ObjectKey k;
  k.chunk_hash = hash;
  k.model_name = "m";
  k.object_group_id = group;
  return k;
}

MemoryLayout layout(int64_t rows) {  // rows x 16 float16 = rows * 32 bytes
  MemoryLayout l;
  l.shapes = {{rows, 16}};
  l.dtypes = {DType::Float16};
  return l;
}

Op op(OpKind kind, std::vector<ObjectKey> keys, int64_t rows = 16) {
  Op o;
  o.kind = kind;
  o.t_mono = 1.0;
  o.t_wall = 1.7e9;
  o.keys = std::move(keys);
  o.layout = layout(rows);
  return o;
}

Op prefetch(std::vector<ObjectKey> keys, trace::PrefetchMode mode) {
  Op o = op(OpKind::SubmitPrefetch, {});
  o.spec.keys = std::move(keys);
  o.spec.attn.num_chunks_in_sw = {-1, -1};  // two object groups
  o.spec.group_layouts[0] = layout(32);     // 1024 B
  o.spec.group_layouts[1] = layout(4);      // 128 B
  o.spec.mode = mode;
  return o;
}

std::string write_hand_trace(const std::string& path) {
  trace::TraceWriter w(path, trace::Header{});
  auto put = [&](const Op& o) { w.write_op(o, trace::Era::Three); };
  ObjectKey a = key("A"), e = key("E");
  put(op(OpKind::ReserveWrite, {a, key("B")}));  // 512 B each
  put(op(OpKind::FinishWrite, {a, key("B")}));
  put(prefetch({a, key("C"), key("D", 1)}, trace::PrefetchMode::Lookup));
  put(op(OpKind::ReadEnter, {a, e}));  // E has no size yet
  put(op(OpKind::ReadExit, {a, e}));
  put(op(OpKind::FinishRead, {a, e}));
  put(prefetch({key("B")}, trace::PrefetchMode::Warm));
  put(op(OpKind::ReserveWrite, {e}, 32));  // E's only size: 1024 B
  put(op(OpKind::ReserveWrite, {key("H"), key("I")}));
  put(op(OpKind::ReadEnter, {key("F")}));  // never sized: the most common size
  put(op(OpKind::AbortWrite, {key("H")}));
  ObjectKey a_rank1 = a;
  a_rank1.kv_rank = 1;  // another object: keys are whole ObjectKeys
  put(op(OpKind::ReserveWrite, {a_rank1}));
  // A record whose args do not decode (unknown codec tag): skipped and counted.
  w.write_frame(trace::testing::record_body_with_args(
      "lmcache.v1.distributed.storage_manager.StorageManager.finish_write",
      [](trace::MsgpackWriter& mw, std::string&) {
        mw.map(1);
        mw.str("keys");
        mw.array(1);
        mw.map(2);
        mw.str("__t__");
        mw.str("Bogus");
        mw.str("v");
        mw.integer(1);
      }));
  w.close();
  return path;
}

AccessStream read(const std::string& path, StreamOptions o = {}) {
  trace::FrameReader reader(path);
  AccessStreamBuilder b(o);
  add_records(reader, b);
  return b.finish();
}

struct Expected {
  uint32_t key;
  AccessKind kind;
  uint64_t bytes;
};

TEST(MrcStream, HandTraceMapsToTheDocumentedAccesses) {
  AccessStream s = read(write_hand_trace(trace::testing::tmp("hand.lct")));
  const std::vector<Expected> want = {
      {0, AccessKind::Write, 512},    // reserve_write A
      {1, AccessKind::Write, 512},    // reserve_write B
      {0, AccessKind::Lookup, 1024},  // prefetch A: group 0's layout
      {2, AccessKind::Lookup, 1024},  // prefetch C
      {3, AccessKind::Lookup, 128},   // prefetch D: group 1's layout
      {0, AccessKind::Read, 1024},    // __enter__ A: as last sized
      {4, AccessKind::Read, 1024},    // __enter__ E: E's later (only) size
      {4, AccessKind::Write, 1024},   // reserve_write E
      {5, AccessKind::Write, 512},    // H
      {6, AccessKind::Write, 512},    // I
      {7, AccessKind::Read, 512},     // __enter__ F: most common size (512 B, 4 sized accesses)
      {5, AccessKind::Forget, 0},     // abort_write H: leaves the cache
      {8, AccessKind::Write, 512},    // A with kv_rank 1: another key
  };
  ASSERT_EQ(s.accesses.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("access " + std::to_string(i));
    EXPECT_EQ(s.accesses[i].key, want[i].key);
    EXPECT_EQ(s.accesses[i].kind(), want[i].kind);
    if (want[i].kind != AccessKind::Forget) {
      EXPECT_EQ(s.bytes(s.accesses[i]), want[i].bytes);
    }
  }
  EXPECT_EQ(s.trace_counts.writes, 6u);
  EXPECT_EQ(s.trace_counts.lookups, 3u);
  EXPECT_EQ(s.trace_counts.reads, 3u);
  EXPECT_EQ(s.warm_keys_skipped, 1u);
  EXPECT_EQ(s.sized_by_fallback, 2u);  // E and F
  EXPECT_EQ(s.most_common_size, 512u);
  EXPECT_EQ(s.distinct_keys, 9u);
  EXPECT_EQ(s.undecodable_records, 1u);
  EXPECT_EQ(s.sample_rate, 1.0);
}

TEST(MrcStream, WarmAsWriteCountsWarmKeysAsWrites) {
  StreamOptions o;
  o.warm_as_write = true;
  AccessStream s = read(write_hand_trace(trace::testing::tmp("hand.lct")), o);
  EXPECT_EQ(s.warm_keys_skipped, 0u);
  EXPECT_EQ(s.trace_counts.writes, 7u);
  const Access& warm = s.accesses[7];  // after the two reads of the first __enter__
  EXPECT_EQ(warm.key, 1u);             // B
  EXPECT_EQ(warm.kind(), AccessKind::Write);
  EXPECT_EQ(s.bytes(warm), 1024u);  // the spec's group 0 layout
}

}  // namespace
}  // namespace fleet::mrc
