// Record batches: frames survive compress -> decompress -> split byte for byte across reused
// builders, and every corrupt or oversized batch is refused with a ProtocolError, never a crash.
#include "fleet/wire/batch.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "fleet/trace/shared_trace.h"
#include "fleet/trace/trace_writer.h"
#include "fleet/wire/protocol.h"
#include "scratch_dir.h"

namespace fleet::wire {
namespace {

std::vector<std::string> some_frames(size_t n, size_t seed) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(std::string(1 + (i * 37 + seed) % 900, static_cast<char>('a' + (i + seed) % 26)));
  return out;
}

TEST(Batch, RoundTripsThroughAReusedBuilder) {
  BatchBuilder b;
  for (size_t round = 0; round < 3; ++round) {  // the builder's buffers are reused each round
    auto frames = some_frames(200 + round * 300, round);
    size_t raw_bytes = 0;
    for (const auto& f : frames) {
      b.add(f);
      raw_bytes += 4 + f.size();
    }
    EXPECT_EQ(b.records(), frames.size());
    ASSERT_EQ(b.raw_bytes(), raw_bytes);
    std::string z(b.finish_compressed());
    EXPECT_TRUE(b.empty());
    RawBatch raw = decompress_batch(z, raw_bytes);
    auto views = split_frames(raw).frames;
    ASSERT_EQ(views.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(views[i], frames[i]) << i;
  }
}

// Every codec, alternating on one builder (its two buffers swap roles), at zstd's normal and
// fast levels: the worker's decode_batch gives back the frames byte for byte.
TEST(Batch, EveryCodecRoundTripsThroughDecodeBatch) {
  BatchBuilder b;
  const struct {
    BatchCodec codec;
    int level;
  } cases[] = {{BatchCodec::None, 0},  {BatchCodec::Zstd, 1}, {BatchCodec::None, 0},
               {BatchCodec::Zstd, -5}, {BatchCodec::Zstd, 3}, {BatchCodec::None, 0}};
  size_t round = 0;
  for (const auto& c : cases) {
    auto frames = some_frames(100 + 97 * round, round);
    ++round;
    for (const auto& f : frames) b.add(f);
    const size_t raw_bytes = b.raw_bytes();
    std::string data(b.finish(c.codec, c.level));
    EXPECT_TRUE(b.empty());
    if (c.codec == BatchCodec::None) {
      EXPECT_EQ(data.size(), raw_bytes);
    } else {
      EXPECT_LT(data.size(), raw_bytes);  // these frames compress well
    }
    RawBatch raw = decode_batch(data, codec_name(c.codec), raw_bytes);
    auto views = split_frames(raw).frames;
    ASSERT_EQ(views.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(views[i], frames[i]) << i;
  }
}

TEST(Batch, UncompressedBatchesAndUnknownCodecsAreChecked) {
  BatchBuilder b;
  for (const auto& f : some_frames(20, 2)) b.add(f);
  const size_t raw_bytes = b.raw_bytes();
  std::string data(b.finish(BatchCodec::None));
  EXPECT_THROW(decode_batch(data, "none", raw_bytes + 1), ProtocolError);  // size mismatch
  EXPECT_THROW(decode_batch(data, "none", kMaxBatchRawBytes + 1), ProtocolError);
  EXPECT_THROW(decode_batch(data, "lz4", raw_bytes), ProtocolError);
  EXPECT_THROW(decode_batch(data, "zstd", raw_bytes), ProtocolError);  // not a zstd frame
  EXPECT_EQ(parse_codec("none"), BatchCodec::None);
  EXPECT_EQ(parse_codec("zstd"), BatchCodec::Zstd);
  EXPECT_FALSE(parse_codec("ZSTD").has_value());
}

// Fuzzing (batch_fuzz, wire_message_fuzz): an empty "none" batch memcpy'd from a null buffer
// (undefined behaviour, reported by UBSan).
TEST(Batch, AnEmptyUncompressedBatchDecodesEmpty) {
  EXPECT_TRUE(decode_batch(std::string_view(), "none", 0).empty());
  EXPECT_TRUE(split_frames(decode_batch(std::string_view(), "none", 0)).frames.empty());
}

TEST(Batch, CorruptOrOversizedBatchesAreRefused) {
  BatchBuilder b;
  for (const auto& f : some_frames(50, 1)) b.add(f);
  const size_t raw_bytes = b.raw_bytes();
  std::string z(b.finish_compressed());
  EXPECT_THROW(decompress_batch(z, raw_bytes + 1), ProtocolError);  // size mismatch
  EXPECT_THROW(decompress_batch(z, kMaxBatchRawBytes + 1), ProtocolError);
  EXPECT_THROW(decompress_batch("not zstd at all", 15), ProtocolError);
  std::string cut = z.substr(0, z.size() / 2);
  EXPECT_THROW(decompress_batch(cut, raw_bytes), ProtocolError);
  // A frame length that runs past the end, and a batch ending inside a length prefix.
  RawBatch bad = {0, 0, 0, 9, 'x'};
  EXPECT_THROW(split_frames(bad), ProtocolError);
  RawBatch short_prefix = {0, 0};
  EXPECT_THROW(split_frames(short_prefix), ProtocolError);
}

// A zstd frame of `content` zero bytes, made a MiB at a time so the test never holds it;
// `declare_size` false leaves the size out of the frame header (a streaming frame).
std::string zero_frame(size_t content, bool declare_size) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, declare_size ? 1 : 0);
  if (declare_size) ZSTD_CCtx_setPledgedSrcSize(c, content);
  const std::string mib(1u << 20, '\0');
  std::string out;
  std::string buf(ZSTD_CStreamOutSize(), '\0');
  for (size_t done = 0; done < content; done += mib.size()) {
    ZSTD_inBuffer in{mib.data(), std::min(mib.size(), content - done), 0};
    const bool last = done + mib.size() >= content;
    size_t left = 0;
    do {
      ZSTD_outBuffer o{buf.data(), buf.size(), 0};
      left = ZSTD_compressStream2(c, &o, &in, last ? ZSTD_e_end : ZSTD_e_continue);
      out.append(buf.data(), o.pos);
    } while (in.pos < in.size || (last && left != 0));
  }
  ZSTD_freeCCtx(c);
  return out;
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A zstd bomb (a few KiB that inflate to 256 MiB) is refused from the frame header, before
// anything is allocated for it; so is a frame that does not declare its size.
TEST(Batch, ZstdBombsAndUndeclaredSizesAreRefusedWithoutAllocating) {
  const std::string bomb = zero_frame(256u << 20, true);
  ASSERT_LT(bomb.size(), 64u << 10);
  const long before = max_rss_kib();
  EXPECT_THROW(decompress_batch(bomb, 256u << 20), ProtocolError);  // above kMaxBatchRawBytes
  EXPECT_THROW(decompress_batch(bomb, 4096), ProtocolError);        // lies about its size
  const std::string undeclared = zero_frame(1u << 20, false);
  EXPECT_THROW(decompress_batch(undeclared, 1u << 20), ProtocolError);
  EXPECT_LT(max_rss_kib() - before, 16 * 1024) << "peak RSS grew: something was allocated";
}

}  // namespace
}  // namespace fleet::wire

namespace fleet::wire {
namespace {

// References and inline frames in one batch: the worker gets every body back in batch order,
// the referenced ones read from its copy of the trace.
TEST(BatchRefs, MixInlineFramesAndReferencesInOrder) {
  const test::ScratchDir dir;
  const std::string path = dir / "batch_refs";
  std::string file = "HDR";
  std::vector<std::pair<uint64_t, std::string>> on_disk;
  for (int i = 0; i < 50; ++i) {
    std::string body = "record-" + std::to_string(i) + std::string(static_cast<size_t>(i), 'x');
    on_disk.emplace_back(file.size(), body);
    file += trace::frame_bytes(body);
  }
  { std::ofstream(path, std::ios::binary) << file; }
  trace::SharedTrace shared(path, trace::identify_trace(path));

  BatchBuilder b;
  std::vector<std::string> want;
  for (int i = 0; i < 50; ++i) {
    if (i % 3 == 0) {
      const std::string sub = "re-encoded-" + std::to_string(i);  // a split sub-call
      b.add(sub);
      want.push_back(sub);
    } else {
      b.add_ref(on_disk[static_cast<size_t>(i)].first,
                static_cast<uint32_t>(on_disk[static_cast<size_t>(i)].second.size()));
      want.push_back(on_disk[static_cast<size_t>(i)].second);
    }
  }
  const size_t raw_bytes = b.raw_bytes();
  std::string z(b.finish(BatchCodec::Zstd, 1));
  const RawBatch raw = decode_batch(z, "zstd", raw_bytes);  // inline frames point into it
  SplitBatch split = split_frames(raw, &shared);
  ASSERT_EQ(split.frames.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(split.frames[i], want[i]) << i;
}

// Masked references come back as their frames with their masks beside them, in batch order;
// unmasked entries have empty masks.
TEST(BatchRefs, MaskedReferencesCarryTheirMasks) {
  const test::ScratchDir dir;
  const std::string path = dir / "batch_masked";
  std::string file = "HDR";
  std::vector<std::pair<uint64_t, std::string>> on_disk;
  for (int i = 0; i < 6; ++i) {
    std::string body = "rec-" + std::to_string(i);
    on_disk.emplace_back(file.size(), body);
    file += trace::frame_bytes(body);
  }
  { std::ofstream(path, std::ios::binary) << file; }
  trace::SharedTrace shared(path, trace::identify_trace(path));
  BatchBuilder b;
  const std::string mask13("\x05\x10", 2);  // keys 0, 2 and 12 of 13
  b.add_ref(on_disk[0].first, static_cast<uint32_t>(on_disk[0].second.size()));
  b.add_masked_ref(on_disk[1].first, static_cast<uint32_t>(on_disk[1].second.size()), mask13, 13);
  b.add("inline");
  b.add_masked_ref(on_disk[2].first, static_cast<uint32_t>(on_disk[2].second.size()), "\x01", 1);
  EXPECT_EQ(b.raw_bytes(), 16u + 20u + 10u + 19u);
  const size_t raw_bytes = b.raw_bytes();
  std::string data(b.finish(BatchCodec::None));
  const RawBatch raw = decode_batch(data, "none", raw_bytes);
  SplitBatch split = split_frames(raw, &shared);
  ASSERT_EQ(split.frames.size(), 4u);
  ASSERT_EQ(split.masks.size(), 4u);
  EXPECT_EQ(split.frames[1], on_disk[1].second);
  EXPECT_TRUE(split.masks[0].empty());
  EXPECT_EQ(split.masks[1].bits, mask13);
  EXPECT_EQ(split.masks[1].keys, 13u);
  EXPECT_TRUE(split.masks[2].empty());
  EXPECT_EQ(split.frames[3], on_disk[2].second);
  EXPECT_EQ(split.masks[3].keys, 1u);
  // Cut inside the mask: refused, never read past the batch.
  RawBatch cut(raw.begin(), raw.begin() + 16 + 19);
  EXPECT_THROW(split_frames(cut, &shared), ProtocolError);
}

TEST(BatchRefs, AReferenceWithoutASharedTraceOrCutShortIsRefused) {
  BatchBuilder b;
  b.add_ref(100, 20);
  const size_t raw_bytes = b.raw_bytes();
  EXPECT_EQ(raw_bytes, 16u);
  std::string data(b.finish(BatchCodec::None));
  RawBatch raw = decode_batch(data, "none", raw_bytes);
  EXPECT_THROW(split_frames(raw), ProtocolError);  // no trace to read it from
  RawBatch cut(raw.begin(), raw.begin() + 10);
  EXPECT_THROW(split_frames(cut), ProtocolError);
}

}  // namespace
}  // namespace fleet::wire
