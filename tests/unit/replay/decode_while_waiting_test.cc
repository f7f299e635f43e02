// InlineDecoder::decode_ahead: while a paced replay waits for its next instant it reads and
// decodes up to kAhead records ahead, on its own thread, so that none of that lies between a
// call and the call due right after it. The records, their order and a source's failure are
// exactly those of decoding one at a time; nothing is read past the deadline, from a source
// that may wait, or into the record handed out last.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/replay/decoded_stream.h"
#include "fleet/replay/replay_session.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_encoder.h"
#include "recording_engine.h"

namespace fleet::replay {
namespace {

using testing::key;
using testing::RecordingEngine;

// `count` finish_write records 2 ms apart (record i at t = 0.002 i, key 'a' + i % 26), then
// the end or, with `fail`, a read error. Counts the records it served; `waits` says what
// next_never_waits answers.
class CountingSource final : public RecordSource {
 public:
  CountingSource(int count, bool waits, bool fail = false)
      : count_(count), waits_(waits), fail_(fail) {
    for (int i = 0; i < count; ++i) {
      trace::Op o;
      o.kind = trace::OpKind::FinishWrite;
      o.t_mono = 0.002 * i;
      o.t_wall = 1e9 + o.t_mono;
      o.keys = {key(static_cast<char>('a' + i % 26))};
      o.layout.shapes = {{4}};
      o.layout.dtypes = {trace::DType::Float16};
      bodies_.push_back(trace::encode_record_body(o, trace::Era::Three));
    }
  }
  bool next(trace::RecordView& out) override {
    if (served_ == count_) {
      if (fail_) throw trace::TraceError("t.lct: read error at offset 4321");
      return false;
    }
    const std::string& b = bodies_[static_cast<size_t>(served_)];
    trace::parse_record(reinterpret_cast<const uint8_t*>(b.data()), b.size(), out);
    out.file_offset = static_cast<uint64_t>(served_++);
    return true;
  }
  void reject_malformed(const trace::RecordView&, const std::string&) override {}
  bool next_never_waits() const override { return !waits_; }
  int served() const { return served_; }

 private:
  int count_;
  bool waits_;
  bool fail_;
  int served_ = 0;
  std::vector<std::string> bodies_;
};

constexpr int64_t kFar = int64_t{1} << 62;

TEST(DecodeWhileWaiting, HandsOverTheRecordsOfPlainDecodingAndKeepsTheCurrentOne) {
  CountingSource source(100, /*waits=*/false);
  InlineDecoder decoder(source);
  util::VirtualClock clock;
  uint64_t expected = 0;
  while (const DecodedRecord* r = decoder.next()) {
    ASSERT_EQ(r->file_offset, expected) << "out of order";
    ASSERT_EQ(r->op.keys.at(0), key(static_cast<char>('a' + expected % 26)));
    // Every third record, the replay waits: the ring fills behind the record in hand.
    if (expected % 3 == 0) {
      decoder.decode_ahead(clock, kFar);
      EXPECT_EQ(r->file_offset, expected) << "decoding ahead overwrote the record in hand";
      EXPECT_EQ(r->op.keys.at(0), key(static_cast<char>('a' + expected % 26)));
      EXPECT_LE(source.served(), static_cast<int>(expected + 1 + InlineDecoder::kAhead));
    }
    ++expected;
  }
  EXPECT_EQ(expected, 100u);
  EXPECT_EQ(decoder.next(), nullptr) << "the stream stays ended";
}

TEST(DecodeWhileWaiting, ReadsAtMostKAheadAndNothingPastTheDeadline) {
  CountingSource source(100, /*waits=*/false);
  InlineDecoder decoder(source);
  util::VirtualClock clock;
  ASSERT_NE(decoder.next(), nullptr);
  decoder.decode_ahead(clock, clock.now_ns());  // no time left: nothing read
  EXPECT_EQ(source.served(), 1);
  decoder.decode_ahead(clock, kFar);
  EXPECT_EQ(source.served(), 1 + static_cast<int>(InlineDecoder::kAhead));
  decoder.decode_ahead(clock, kFar);  // the ring is full
  EXPECT_EQ(source.served(), 1 + static_cast<int>(InlineDecoder::kAhead));
}

TEST(DecodeWhileWaiting, ASourceThatMayWaitIsNotReadAhead) {
  CountingSource source(10, /*waits=*/true);
  InlineDecoder decoder(source);
  util::VirtualClock clock;
  ASSERT_NE(decoder.next(), nullptr);
  decoder.decode_ahead(clock, kFar);
  EXPECT_EQ(source.served(), 1);
}

TEST(DecodeWhileWaiting, AFailureMetAheadComesAfterEveryRecordBeforeIt) {
  CountingSource source(5, /*waits=*/false, /*fail=*/true);
  InlineDecoder decoder(source);
  util::VirtualClock clock;
  ASSERT_NE(decoder.next(), nullptr);
  decoder.decode_ahead(clock, kFar);  // reads records 1-4, then meets the error: kept
  EXPECT_EQ(source.served(), 5);
  for (uint64_t i = 1; i < 5; ++i) {
    const DecodedRecord* r = decoder.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->file_offset, i);
  }
  try {
    decoder.next();
    FAIL() << "the source's error was not passed on";
  } catch (const trace::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 4321"), std::string::npos);
  }
}

// A paced run on the real clock: while it waits out each 2-ms gap, the records after the
// current one are read, so at a record's callback the source is ahead of it; at speed 0 (no
// wait) it never is. Either way every record is replayed once, in order.
TEST(DecodeWhileWaiting, APacedReplayReadsAheadWhileItWaits) {
  for (const double speed : {1.0, 0.0}) {
    CountingSource source(40, /*waits=*/false);
    RecordingEngine engine;
    SessionOptions so;
    so.speed = speed;
    ReplaySession session(engine, util::RealClock::instance(), so);
    int most_ahead = 0;
    const SessionResult r = session.run(source, [&](const RecordEvent& ev) {
      most_ahead = std::max(most_ahead, source.served() - static_cast<int>(ev.n));
    });
    EXPECT_EQ(r.replayed, 40u) << "speed " << speed;
    ASSERT_EQ(engine.calls.size(), 41u) << "speed " << speed;  // 40 finish_write, then close
    for (int i = 0; i < 40; ++i) {
      EXPECT_EQ(engine.calls[static_cast<size_t>(i)],
                std::string("finish:") + static_cast<char>('a' + i % 26));
    }
    if (speed > 0) {
      EXPECT_GT(most_ahead, 0) << "the paced replay did not read ahead while it waited";
    } else {
      EXPECT_EQ(most_ahead, 0) << "speed 0 has no wait to read ahead in";
    }
  }
}

}  // namespace
}  // namespace fleet::replay
