// Reading ahead on a helper thread (read_ahead.h) must change nothing a reader reports: the same
// records at the same offsets, the same skipped frames, warnings, truncated tail and errors as
// reading inline, for frames that straddle blocks, outgrow a block's headroom or a whole block.
#include "fleet/trace/read_ahead.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "scratch_dir.h"
#include "trace_test_bytes.h"

namespace fleet::trace {
namespace {

using namespace testing;

class Collect final : public Reporter {
 public:
  void warning(uint64_t offset, std::string_view what) override {
    seen.push_back(std::to_string(offset) + ": " + std::string(what));
  }
  std::vector<std::string> seen;
};

std::string temp_path(const std::string& name) { return fleet::test::test_scratch_dir() / name; }

// What a reader reported, in a form two runs can be compared by.
struct Reading {
  std::vector<std::string> records;  // offset, qualname, t_mono, key count
  std::vector<std::string> warnings;
  ReaderCounters counters;
};

Reading read_file(const std::string& path, bool ahead, size_t block_bytes) {
  Collect c;
  ReaderOptions o;
  o.reporter = &c;
  o.read_ahead = ahead;
  o.read_ahead_min_file_bytes = 0;
  o.read_ahead_block_bytes = block_bytes;
  FrameReader r(path, o);
  Reading out;
  RecordView rec;
  while (r.next(rec)) {
    out.records.push_back(std::to_string(rec.file_offset) + " " + std::string(rec.qualname) + " " +
                          std::to_string(rec.t_mono) + " " + std::to_string(rec.args_size));
  }
  out.warnings = c.seen;
  out.counters = r.counters();
  return out;
}

// A trace with ordinary records between frames of every awkward size: 70 KB (past a block's
// 64 KiB headroom), 300 KB (past a whole block) and tiny ones, then a truncated tail.
std::string awkward_trace(int rounds) {
  std::mt19937 rng(7);
  std::string out = header_frame();
  for (int i = 0; i < rounds; ++i) {
    std::vector<ObjectKey> keys;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) keys.push_back(test_key(k));
    out += record_frame(test_op(OpKind::ReserveWrite, 0.001 * i, keys));
    if (i % 17 == 3) out += frame_bytes(std::string(70 * 1024, 'x'));  // not a Record: skipped
    if (i % 53 == 5) out += frame_bytes(std::string(300 * 1024, 'y'));
    if (i % 11 == 1) out += frame_bytes("z");
  }
  out += record_frame(test_op(OpKind::FinishWrite, 9.0, {test_key(1)})).substr(0, 30);
  return out;
}

TEST(ReadAhead, ReportsExactlyWhatReadingInlineReports) {
  const std::string path = temp_path("awkward.lct");
  write_bytes(path, awkward_trace(400));
  const Reading inline_read = read_file(path, false, 0);
  ASSERT_EQ(inline_read.records.size(), 400u);
  EXPECT_GT(inline_read.counters.malformed_skipped, 40u);
  EXPECT_TRUE(inline_read.counters.truncated_tail);
  for (size_t block : {size_t{4096}, size_t{65536}, size_t{128 << 10}, size_t{1000}}) {
    SCOPED_TRACE("block " + std::to_string(block));
    const Reading ahead = read_file(path, true, block);
    EXPECT_EQ(ahead.records, inline_read.records);
    EXPECT_EQ(ahead.warnings, inline_read.warnings);
    EXPECT_EQ(ahead.counters.records, inline_read.counters.records);
    EXPECT_EQ(ahead.counters.malformed_skipped, inline_read.counters.malformed_skipped);
    EXPECT_EQ(ahead.counters.truncated_tail_bytes, inline_read.counters.truncated_tail_bytes);
    EXPECT_EQ(ahead.counters.bytes_consumed, inline_read.counters.bytes_consumed);
  }
  std::remove(path.c_str());
}

TEST(ReadAhead, AFrameAboveTheLimitIsTheSameErrorAtTheSameOffset) {
  const std::string path = temp_path("huge.lct");
  const std::string head = awkward_trace(30);
  const std::string good = head.substr(0, head.size() - 30);  // without the truncated tail
  write_bytes(path, good + prefix_bytes(0xfffffff0u) + std::string(5000, 'a'));
  for (bool ahead : {false, true}) {
    Collect c;
    ReaderOptions o;
    o.reporter = &c;
    o.read_ahead = ahead;
    o.read_ahead_min_file_bytes = 0;
    o.read_ahead_block_bytes = 4096;
    FrameReader r(path, o);
    RecordView rec;
    size_t n = 0;
    try {
      while (r.next(rec)) ++n;
      FAIL() << "expected TraceError";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(good.size())),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(n, 30u);
  }
  std::remove(path.c_str());
}

TEST(ReadAhead, AReaderClosedEarlyStopsItsHelper) {
  const std::string path = temp_path("early.lct");
  write_bytes(path, awkward_trace(2000));
  for (int i = 0; i < 20; ++i) {
    Collect quiet;
    ReaderOptions o;
    o.reporter = &quiet;
    o.read_ahead_min_file_bytes = 0;
    o.read_ahead_block_bytes = 4096;  // the ring fills long before the file ends
    FrameReader r(path, o);
    RecordView rec;
    for (int k = 0; k < i; ++k) ASSERT_TRUE(r.next(rec));
  }  // each destructor must join a helper that waits on a full ring (a hang fails by timeout)
  std::remove(path.c_str());
}

// The ring itself: blocks come in file order and concatenate to the file, whatever the block
// size and however many the consumer holds at once.
TEST(ReadAhead, BlocksConcatenateToTheFile) {
  const std::string path = temp_path("bytes.bin");
  std::string bytes(1'000'003, '\0');
  std::mt19937 rng(3);
  for (char& ch : bytes) ch = static_cast<char>(rng());
  write_bytes(path, bytes);
  for (size_t blocks : {size_t{2}, size_t{3}, size_t{8}}) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    std::string got;
    {
      ReadAhead ra(fd, 1000 + blocks, 16, blocks);
      ReadAhead::Block held;
      bool holding = false;
      for (;;) {
        ReadAhead::Block b = ra.acquire();
        ASSERT_EQ(b.error, 0);
        EXPECT_EQ(b.offset, got.size());
        if (b.len == 0) break;
        got.append(reinterpret_cast<const char*>(b.data), b.len);
        if (holding) ra.release(held);  // two held at a time, as FrameReader does
        held = b;
        holding = true;
      }
      EXPECT_EQ(ra.acquire().len, 0u);  // the end repeats
    }
    ::close(fd);
    EXPECT_TRUE(got == bytes) << "blocks " << blocks;
  }
  std::remove(path.c_str());
}

TEST(ReadAhead, AReadErrorArrivesWithItsOffset) {
  const int fd =
      ::open(fleet::test::test_scratch_dir().path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    ReadAhead ra(fd, 4096, 0, 3);
    const ReadAhead::Block b = ra.acquire();
    EXPECT_EQ(b.error, EISDIR);
    EXPECT_EQ(b.offset, 0u);
    EXPECT_EQ(b.len, 0u);
  }
  ::close(fd);
}

}  // namespace
}  // namespace fleet::trace
