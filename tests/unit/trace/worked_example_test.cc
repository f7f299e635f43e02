// The byte-exact worked example of docs/trace-format.md §7, written by our writer and read by
// our reader, against the fixture produced by an independent encoder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/trace_writer.h"
#include "fleet/util/sha256.h"
#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::trace {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

ObjectKey key(char last) {
  ObjectKey k;
  k.chunk_hash = std::string("\0\0\0", 3) + last;
  k.model_name = "m";
  return k;
}

TEST(WorkedExample, WriterReproducesFixtureBytes) {
  Header h;
  h.t_mono_start = 1000.0;
  h.t_wall_start = 1700000000.0;
  const fleet::test::ScratchDir dir;
  std::string path = dir / "worked.lct";
  {
    TraceWriter w(path, h);
    Op reserve;
    reserve.kind = OpKind::ReserveWrite;
    reserve.t_mono = 0.5;
    reserve.t_wall = 1700000000.5;
    reserve.keys = {key(1), key(2)};
    reserve.layout.shapes = {{16, 16}};
    reserve.layout.dtypes = {DType::Float16};
    reserve.mode = WriteMode::New;
    w.write_op(reserve, Era::Three);
    Op finish;
    finish.kind = OpKind::FinishWrite;
    finish.t_mono = 0.75;
    finish.t_wall = 1700000000.75;
    finish.keys = reserve.keys;
    w.write_op(finish, Era::Three);
    w.close();
  }
  std::string ours = read_file(path);
  std::string fixture = read_file(::fleet::test::shared_fixtures() + "/worked_example.lct");
  ASSERT_EQ(fixture.size(), 869u);
  EXPECT_EQ(ours.size(), fixture.size());
  EXPECT_TRUE(ours == fixture);
  EXPECT_EQ(util::sha256_hex(ours),
            "16000ac455b50f6885e4668b50416b35c31f8070dd46413713be8836778c6ad8");
}

TEST(WorkedExample, ReaderDecodesFixture) {
  FrameReader reader(::fleet::test::shared_fixtures() + "/worked_example.lct");
  EXPECT_EQ(reader.header().level, "storage");
  EXPECT_EQ(reader.header().trace_schema_version, 2);
  EXPECT_EQ(reader.header().t_mono_start, 1000.0);
  EXPECT_EQ(reader.header().sm_config_digest, "");
  RecordView rec;
  Op op;
  ASSERT_TRUE(reader.next(rec));
  EXPECT_EQ(rec.file_offset, 0x9fu);
  decode_op(rec, op);
  EXPECT_EQ(op.kind, OpKind::ReserveWrite);
  EXPECT_EQ(op.t_mono, 0.5);
  ASSERT_EQ(op.keys.size(), 2u);
  EXPECT_EQ(op.keys[1], key(2));
  EXPECT_EQ(op.layout.object_bytes(), 16u * 16u * 2u);
  EXPECT_EQ(op.mode, WriteMode::New);
  ASSERT_TRUE(reader.next(rec));
  EXPECT_EQ(rec.file_offset, 0x22bu);
  decode_op(rec, op);
  EXPECT_EQ(op.kind, OpKind::FinishWrite);
  EXPECT_EQ(op.t_wall, 1700000000.75);
  EXPECT_FALSE(reader.next(rec));
  EXPECT_FALSE(reader.counters().truncated_tail);
  EXPECT_EQ(reader.counters().records, 2u);
}

TEST(Era3Fixture, EveryRecordDecodes) {
  FrameReader reader(::fleet::test::shared_fixtures() + "/era3_small.lct");
  EXPECT_EQ(reader.header().sm_config_digest,
            "0afcc54a131be4178632c9a9e00d3defd8eb416881b465c742116789a4a5df9b");
  EXPECT_EQ(util::sha256_hex(reader.header().sm_config_json), reader.header().sm_config_digest);
  RecordView rec;
  Op op;
  int counts[kOpKindCount] = {};
  size_t n = 0;
  while (reader.next(rec)) {
    decode_op(rec, op);
    ++counts[static_cast<int>(op.kind)];
    ++n;
    if (op.kind == OpKind::SubmitPrefetch) {
      EXPECT_FALSE(op.spec.keys.empty());
      EXPECT_EQ(op.spec.group_layouts.count(0), 1u);
      EXPECT_EQ(op.spec.policy, TrimPolicy::Prefix);
    }
  }
  EXPECT_EQ(n, 603u);
  EXPECT_EQ(counts[static_cast<int>(OpKind::ReserveWrite)], 103);
  EXPECT_EQ(counts[static_cast<int>(OpKind::FinishWrite)], 103);
  EXPECT_EQ(counts[static_cast<int>(OpKind::SubmitPrefetch)], 103);
  EXPECT_EQ(counts[static_cast<int>(OpKind::ReadEnter)], 98);
  EXPECT_EQ(counts[static_cast<int>(OpKind::ReadExit)], 98);
  EXPECT_EQ(counts[static_cast<int>(OpKind::FinishRead)], 98);
}

}  // namespace
}  // namespace fleet::trace
