// lct gen's generator: what it writes reads back as exactly the ops it generated (eras 1, 3, 4),
// the same seed gives the same bytes, and its header config is LMCache-shaped.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/synthetic_trace.h"
#include "fleet/util/sha256.h"
#include "scratch_dir.h"
#include "test_paths.h"
#include "trace_test_bytes.h"

namespace fleet::trace {
namespace {

SyntheticOptions small(Era era) {
  SyntheticOptions o;
  o.seed = 42;
  o.duration_s = 5;
  o.rate = 30;
  o.era = era;
  o.tp = 2;
  o.groups = 2;
  o.models = 2;
  o.cache_chunks = 200;  // small enough that eviction happens
  return o;
}

void expect_same(const Op& a, const Op& b, size_t i) {
  SCOPED_TRACE("record " + std::to_string(i));
  ASSERT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.t_mono, b.t_mono);
  EXPECT_EQ(a.t_wall, b.t_wall);
  switch (a.kind) {
    case OpKind::SubmitPrefetch:
      EXPECT_TRUE(a.spec == b.spec);
      EXPECT_EQ(a.external_request_id, b.external_request_id);
      EXPECT_EQ(a.skip_l2, b.skip_l2);
      break;
    case OpKind::ReserveWrite:
      EXPECT_EQ(a.keys, b.keys);
      EXPECT_EQ(a.layout, b.layout);
      EXPECT_EQ(a.mode, b.mode);
      break;
    case OpKind::FinishRead:
      EXPECT_EQ(a.keys, b.keys);
      EXPECT_EQ(a.read_locks, b.read_locks);
      break;
    default:
      EXPECT_EQ(a.keys, b.keys);
  }
}

class SyntheticRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(SyntheticRoundTrip, ReadsBackAsGenerated) {
  SyntheticOptions o = small(static_cast<Era>(GetParam()));
  const fleet::test::ScratchDir dir;
  std::string path = dir / ("synth_" + std::to_string(GetParam()) + ".lct");
  SyntheticStats stats = write_synthetic_trace(path, o);
  ASSERT_GT(stats.records, 100u);
  EXPECT_GT(stats.hit_chunks, 0u);
  EXPECT_GT(stats.miss_chunks, 0u);

  SyntheticTrace expected(o);
  FrameReader reader(path);
  EXPECT_EQ(reader.header().sm_config_digest, util::sha256_hex(reader.header().sm_config_json));
  RecordView rec;
  Op got, want;
  size_t n = 0;
  int kinds[kOpKindCount] = {};
  double last = 0;
  while (reader.next(rec)) {
    ASSERT_TRUE(expected.next(want));
    ASSERT_NO_THROW(decode_op(rec, got)) << "record at offset " << rec.file_offset;
    expect_same(got, want, n);
    EXPECT_GE(got.t_mono, last);
    last = got.t_mono;
    ++kinds[static_cast<int>(got.kind)];
    if (got.kind == OpKind::SubmitPrefetch) {
      // Chunk-major keys: position j*G*W + g*W + r.
      const auto& k = got.spec.keys;
      ASSERT_EQ(k.size() % 4, 0u);
      EXPECT_EQ(k[0].chunk_hash, k[3].chunk_hash);
      EXPECT_EQ(k[1].object_group_id, 0);
      EXPECT_EQ(k[2].object_group_id, 1);
      EXPECT_NE(k[0].kv_rank, k[1].kv_rank);
      EXPECT_EQ(k[0].chunk_hash.size(), 16u);
    }
    ++n;
  }
  EXPECT_FALSE(expected.next(want));
  EXPECT_EQ(n, stats.records);
  EXPECT_EQ(reader.counters().malformed_skipped, 0u);
  EXPECT_FALSE(reader.counters().truncated_tail);
  bool era4 = o.era == Era::Four;
  EXPECT_EQ(kinds[static_cast<int>(OpKind::SubmitPrefetch)] > 0, !era4);
  EXPECT_GT(kinds[static_cast<int>(OpKind::ReadEnter)], 0);
  EXPECT_EQ(kinds[static_cast<int>(OpKind::ReadEnter)], kinds[static_cast<int>(OpKind::ReadExit)]);
  EXPECT_EQ(
      kinds[static_cast<int>(OpKind::ReserveWrite)],
      kinds[static_cast<int>(OpKind::FinishWrite)] + kinds[static_cast<int>(OpKind::AbortWrite)]);
}

INSTANTIATE_TEST_SUITE_P(Eras, SyntheticRoundTrip, ::testing::Values(1, 3, 4));

TEST(SyntheticTrace, SameSeedSameBytesOtherSeedOtherBytes) {
  SyntheticOptions o = small(Era::Three);
  const fleet::test::ScratchDir dir;
  std::string a = dir / "seed_a.lct", b = dir / "seed_b.lct";
  write_synthetic_trace(a, o);
  write_synthetic_trace(b, o);
  std::string ba = testing::read_bytes(a);
  EXPECT_FALSE(ba.empty());
  EXPECT_TRUE(ba == testing::read_bytes(b));
  o.seed = 43;
  write_synthetic_trace(b, o);
  EXPECT_FALSE(ba == testing::read_bytes(b));
}

TEST(SyntheticTrace, RecordsLimitAndSharedPrefixes) {
  SyntheticOptions o = small(Era::Three);
  o.records = 500;
  o.tp = 1;
  o.groups = 1;
  o.models = 1;
  o.system_prompts = 1;
  SyntheticTrace g(o);
  Op op;
  size_t n = 0;
  std::vector<std::string> first_hashes;
  while (g.next(op)) {
    ++n;
    if (op.kind == OpKind::SubmitPrefetch)
      first_hashes.emplace_back(op.spec.keys.front().chunk_hash);
  }
  EXPECT_GE(n, 500u);
  EXPECT_LT(n, 520u);  // in-flight requests finish, nothing more
  // One system prompt of >= 256 tokens: every request starts with the same chunk.
  ASSERT_GT(first_hashes.size(), 10u);
  for (const auto& h : first_hashes) EXPECT_EQ(h, first_hashes[0]);
}

TEST(SyntheticTrace, HeaderConfigMatchesLMCacheShape) {
  // With default options the config is the one of the independent fixture, byte for byte.
  SyntheticOptions o;
  FrameReader fixture(::fleet::test::shared_fixtures() + "/era3_small.lct");
  EXPECT_EQ(synthetic_config_json(o), fixture.header().sm_config_json);
  EXPECT_EQ(synthetic_header(o).sm_config_digest, fixture.header().sm_config_digest);
}

TEST(SyntheticTrace, RejectsBadOptions) {
  SyntheticOptions o;
  EXPECT_TRUE(validate_synthetic_options(o).ok());
  o.layout = "2x32x8:bfloat16";
  EXPECT_FALSE(validate_synthetic_options(o).ok());
  EXPECT_EQ(validate_synthetic_options(o).message(),
            "--layout needs exactly four dimensions KVxLAYERSxKV_HEADSxHEAD_DIM");
  EXPECT_EQ(validate_synthetic_options(o).code(), fleet::ExitCode::kBadInput);
  EXPECT_THROW(SyntheticTrace{o}, std::invalid_argument);
  o = {};
  o.rate = 0;
  EXPECT_FALSE(validate_synthetic_options(o).ok());
  o = {};
  o.era = static_cast<Era>(2);
  EXPECT_FALSE(validate_synthetic_options(o).ok());
}

}  // namespace
}  // namespace fleet::trace
