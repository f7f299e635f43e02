// The replay's decode stage: DecodeAhead (a second thread, a ring ahead of the dispatch) hands
// the session exactly what InlineDecoder does — same records, order, skip outcomes, malformed
// frames handed back to the source — and passes on a source's failure only after every record
// before it; cancelling a decoder blocked on a full ring returns.
#include "fleet/replay/decoded_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fleet/replay/replay_session.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/trace/trace_writer.h"
#include "recording_engine.h"
#include "scratch_dir.h"

namespace fleet::replay {
namespace {

using testing::key;
using testing::RecordingEngine;
using namespace std::chrono_literals;

trace::Op make(trace::OpKind kind, double t, char k) {
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1e9 + t;
  o.keys = {key(k)};
  o.layout.shapes = {{4}};
  o.layout.dtypes = {trace::DType::Float16};
  return o;
}

// finish_write whose key carries an unknown codec tag: decodes with an error (skipped).
std::string bad_codec_record(double t) {
  std::string body;
  trace::MsgpackWriter w(body);
  w.map(5);
  w.str("type");
  w.str("record");
  w.str("t_mono");
  w.float64(t);
  w.str("t_wall");
  w.float64(1e9 + t);
  w.str("qualname");
  w.str("lmcache.v1.distributed.storage_manager.StorageManager.finish_write");
  w.str("args");
  w.map(1);
  w.str("keys");
  w.array(1);
  w.wrapper("NoSuchType");
  w.nil();
  return body;
}

// A canonical record whose args hold a str that is not UTF-8: msgspec would refuse the frame.
std::string malformed_record(double t) {
  std::string body =
      trace::encode_record_body(make(trace::OpKind::FinishWrite, t, 'm'), trace::Era::Three);
  const size_t at = body.find("model");
  EXPECT_NE(at, std::string::npos);
  body[at] = '\xff';  // a field name inside args: the deferred check finds it
  return body;
}

// `n` records cycling through every outcome: replayable ops, a skip, a decode error and a
// malformed frame.
std::string write_mixed_trace(const std::string& name, int n) {
  std::string path = fleet::test::test_scratch_dir() / name;
  trace::TraceWriter w(path, trace::Header{});
  for (int i = 0; i < n; ++i) {
    const double t = 0.001 * i;
    const char k = static_cast<char>('a' + i % 26);
    switch (i % 7) {
      case 0:
        w.write_frame(
            trace::encode_record_body(make(trace::OpKind::ReserveWrite, t, k), trace::Era::Three));
        break;
      case 1:
        w.write_frame(
            trace::encode_record_body(make(trace::OpKind::FinishWrite, t, k), trace::Era::Three));
        break;
      case 2: {
        trace::Op u = make(trace::OpKind::Unknown, t, k);
        u.unknown_qualname = "lmcache.v1.distributed.storage_manager.StorageManager.nope";
        w.write_frame(trace::encode_record_body(u, trace::Era::Three));
        break;
      }
      case 3:
        w.write_frame(bad_codec_record(t));
        break;
      case 4:
        w.write_frame(malformed_record(t));
        break;
      default:
        w.write_frame(
            trace::encode_record_body(make(trace::OpKind::ReadEnter, t, k), trace::Era::Three));
    }
  }
  w.close();
  return path;
}

struct Seen {
  std::string qualname;
  bool decoded;
  double t_mono;
  uint64_t offset;
  size_t keys;
  bool operator==(const Seen&) const = default;
};

void PrintTo(const Seen& s, std::ostream* os) {
  *os << "{" << s.qualname << " decoded=" << s.decoded << " t=" << s.t_mono
      << " offset=" << s.offset << " keys=" << s.keys << "}";
}

std::vector<Seen> drain(DecodedStream& s) {
  std::vector<Seen> out;
  while (const DecodedRecord* r = s.next()) {
    // Keys mean something only for a decoded call (an Unknown or a failed decode leaves the
    // slot's previous keys behind, as decode_op always did with its one reused Op).
    const bool call = r->decoded && r->op.kind != trace::OpKind::Unknown;
    out.push_back({std::string(r->op.qualname()), r->decoded, r->t_mono, r->file_offset,
                   call ? r->op.op_keys().size() : 0});
  }
  return out;
}

trace::ReaderOptions deferred() {
  trace::ReaderOptions ro;
  ro.defer_args_check = true;
  return ro;
}

TEST(DecodeAhead, HandsOverWhatTheInlineDecoderDoes) {
  const std::string path = write_mixed_trace("mixed.lct", 3000);  // many laps of the ring
  trace::FrameReader inline_reader(path, deferred());
  FileRecordSource inline_source(inline_reader);
  InlineDecoder inline_decoder(inline_source);
  const std::vector<Seen> expected = drain(inline_decoder);

  trace::FrameReader ahead_reader(path, deferred());
  FileRecordSource ahead_source(ahead_reader);
  std::vector<Seen> got;
  {
    DecodeAhead ahead(ahead_source, 16);
    got = drain(ahead);
  }
  ASSERT_EQ(expected.size(), 3000u - 3000u / 7 - (3000 % 7 > 4 ? 1 : 0));
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "record " << i;
  EXPECT_EQ(ahead_reader.counters().malformed_skipped, inline_reader.counters().malformed_skipped);
  EXPECT_EQ(ahead_reader.counters().records, inline_reader.counters().records);
  EXPECT_GT(ahead_reader.counters().malformed_skipped, 0u);
}

// Yields `good` records of one canonical frame, then throws as a trace that failed mid-read.
class FailingSource final : public RecordSource {
 public:
  explicit FailingSource(int good)
      : good_(good),
        body_(trace::encode_record_body(make(trace::OpKind::FinishWrite, 0.5, 'z'),
                                        trace::Era::Three)) {}
  bool next(trace::RecordView& out) override {
    if (served_ == good_) throw trace::TraceError("t.lct: read error at offset 1234");
    trace::parse_record(reinterpret_cast<const uint8_t*>(body_.data()), body_.size(), out);
    out.file_offset = static_cast<uint64_t>(served_++);
    return true;
  }
  void reject_malformed(const trace::RecordView&, const std::string&) override {}

 private:
  int good_;
  int served_ = 0;
  std::string body_;
};

TEST(DecodeAhead, ASourceFailureComesAfterEveryRecordBeforeIt) {
  FailingSource source(100);
  DecodeAhead ahead(source, 8);
  int seen = 0;
  try {
    while (const DecodedRecord* r = ahead.next()) {
      EXPECT_EQ(r->file_offset, static_cast<uint64_t>(seen));
      ++seen;
    }
    FAIL() << "the source's error was not passed on";
  } catch (const trace::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 1234"), std::string::npos);
  }
  EXPECT_EQ(seen, 100);
  EXPECT_EQ(ahead.next(), nullptr);  // thrown once; the stream then stays ended
}

// Never ends: the producer fills the ring and waits for the consumer. Counts what it served.
class EndlessSource final : public RecordSource {
 public:
  EndlessSource()
      : body_(trace::encode_record_body(make(trace::OpKind::FinishWrite, 0.5, 'e'),
                                        trace::Era::Three)) {}
  bool next(trace::RecordView& out) override {
    trace::parse_record(reinterpret_cast<const uint8_t*>(body_.data()), body_.size(), out);
    served_.fetch_add(1);
    return true;
  }
  void reject_malformed(const trace::RecordView&, const std::string&) override {}
  int served() const { return served_.load(); }

 private:
  std::string body_;
  std::atomic<int> served_{0};
};

// A ring of 4 with 3 records taken (the third still held by the consumer, so 2 released): the
// producer has decoded 2 + 4 = 6 and sleeps on the full ring. Returns once it is there.
constexpr int kFullRing = 6;
void fill_the_ring(const EndlessSource& source, DecodeAhead& ahead) {
  for (int i = 0; i < 3; ++i) ASSERT_NE(ahead.next(), nullptr);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (source.served() < kFullRing && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);  // poll interval: the producer gives no other signal
  ASSERT_EQ(source.served(), kFullRing) << "the producer did not fill the ring within 10 s";
}

// Runs `fn` on its own thread and says whether it returned within `timeout`. On time out the
// thread is left behind (detached; `fn` must own what it touches) so that the test fails with
// a message instead of hanging until ctest's timeout.
template <class Fn>
bool returns_within(std::chrono::milliseconds timeout, Fn fn) {
  auto returned = std::make_shared<std::promise<void>>();
  std::future<void> f = returned->get_future();
  std::thread([fn = std::optional<Fn>(std::move(fn)), returned]() mutable {
    (*fn)();
    fn.reset();  // what it captured is released before the caller goes on
    returned->set_value();
  }).detach();
  return f.wait_for(timeout) == std::future_status::ready;
}

TEST(DecodeAhead, CancelReleasesAProducerWaitingOnAFullRing) {
  auto source = std::make_shared<EndlessSource>();
  auto ahead = std::make_shared<DecodeAhead>(*source, 4);
  ASSERT_NO_FATAL_FAILURE(fill_the_ring(*source, *ahead));
  // The destructor cancels and joins: a producer that slept on through the cancel never lets
  // it return.
  ASSERT_TRUE(returns_within(10s, [source, ahead = std::move(ahead)]() mutable { ahead.reset(); }))
      << "destroying a DecodeAhead whose producer waits on a full ring did not return within "
         "10 s: the cancel did not wake the producer";
  EXPECT_EQ(source->served(), kFullRing) << "the cancelled producer read on";
}

TEST(DecodeAhead, CancelEndsTheStreamOfAProducerWaitingOnAFullRing) {
  auto source = std::make_shared<EndlessSource>();
  auto ahead = std::make_shared<DecodeAhead>(*source, 4);
  ASSERT_NO_FATAL_FAILURE(fill_the_ring(*source, *ahead));
  // After cancel() the consumer gets at most the records decoded before it, then the end: the
  // producer left its wait and finished (a producer still asleep would leave next() waiting).
  auto handed_out = std::make_shared<std::atomic<int>>(-1);
  ASSERT_TRUE(returns_within(10s, [source, ahead, handed_out] {
    ahead->cancel();
    int n = 0;
    while (n <= kFullRing && ahead->next() != nullptr) ++n;
    handed_out->store(n);
  })) << "next() after cancel() did not reach the end of the stream within 10 s";
  EXPECT_GE(handed_out->load(), 0);
  EXPECT_LE(handed_out->load(), kFullRing - 3)
      << "records decoded after the cancel were handed out";
  EXPECT_EQ(ahead->next(), nullptr) << "the stream stays ended";
  EXPECT_EQ(source->served(), kFullRing) << "the cancelled producer read on";
  EXPECT_TRUE(returns_within(10s, [source, ahead = std::move(ahead)]() mutable { ahead.reset(); }))
      << "joining the finished producer did not return within 10 s";
}

// One record with a key mask (a worker's part of a split call), then counts what was refused.
class MaskedSource final : public RecordSource {
 public:
  MaskedSource(std::string body, std::string mask, uint32_t keys)
      : body_(std::move(body)), mask_(std::move(mask)), keys_(keys) {}
  bool next(trace::RecordView& out) override {
    if (served_++) return false;
    trace::parse_record(reinterpret_cast<const uint8_t*>(body_.data()), body_.size(), out, {},
                        true);
    out.key_mask = mask_;
    out.key_mask_keys = keys_;
    return true;
  }
  void reject_malformed(const trace::RecordView&, const std::string& why) override {
    rejected.push_back(why);
  }
  std::vector<std::string> rejected;

 private:
  std::string body_, mask_;
  uint32_t keys_;
  int served_ = 0;
};

TEST(KeyMask, KeepsTheMaskedKeysInOrderAndRefusesAMaskForOtherKeys) {
  trace::Op o = make(trace::OpKind::SubmitPrefetch, 0.5, 'a');
  o.spec.keys.clear();
  for (char c = 'a'; c <= 'j'; ++c) o.spec.keys.push_back(key(c));  // 10 keys
  const std::string body = trace::encode_record_body(o, trace::Era::Three);
  {
    MaskedSource src(body, std::string("\x05\x02", 2), 10);  // keys 0, 2 and 9
    InlineDecoder d(src);
    const DecodedRecord* r = d.next();
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(r->op.spec.keys.size(), 3u);
    EXPECT_EQ(r->op.spec.keys[0], key('a'));
    EXPECT_EQ(r->op.spec.keys[1], key('c'));
    EXPECT_EQ(r->op.spec.keys[2], key('j'));
    EXPECT_TRUE(src.rejected.empty());
  }
  {
    MaskedSource src(body, std::string("\x05", 1), 7);  // built for another record
    InlineDecoder d(src);
    EXPECT_EQ(d.next(), nullptr);
    ASSERT_EQ(src.rejected.size(), 1u);
    EXPECT_NE(src.rejected[0].find("covers 7 keys, the record has 10"), std::string::npos)
        << src.rejected[0];
  }
}

TEST(DecodeAhead, ASessionGivesTheSameResultsEitherWay) {
  const std::string path = write_mixed_trace("session.lct", 2000);
  auto run = [&](bool ahead) {
    trace::FrameReader reader(path, deferred());
    FileRecordSource source(reader);
    RecordingEngine engine;
    SessionOptions so;
    so.speed = 0;
    so.decode_ahead = ahead;
    ReplaySession session(engine, util::RealClock::instance(), so);
    SessionResult r = session.run(source);
    return std::make_tuple(engine.calls, r.total, r.replayed, r.skipped, r.failed,
                           reader.counters().malformed_skipped);
  };
  const auto inline_run = run(false);
  const auto ahead_run = run(true);
  EXPECT_EQ(ahead_run, inline_run);
  EXPECT_GT(std::get<3>(inline_run), 0u);  // the skips are in there
}

}  // namespace
}  // namespace fleet::replay
