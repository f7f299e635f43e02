// The replay session on real trace files: LMCache's skip/fail accounting, order at speed 0,
// pacing on the virtual clock, and lateness bookkeeping.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fleet/replay/replay_session.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/trace/trace_writer.h"
#include "recording_engine.h"
#include "scratch_dir.h"

namespace fleet::replay {
namespace {

using testing::key;
using testing::RecordingEngine;

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

// A record whose args carry an unknown codec tag: LMCache skips it.
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

std::string unknown_qualname_record(double t) {
  trace::Op o = make(trace::OpKind::Unknown, t, 'u');
  o.unknown_qualname =
      "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write_with_status";
  return trace::encode_record_body(o, trace::Era::Three);
}

std::string write_trace(const std::string& name, const std::vector<std::string>& bodies) {
  std::string path = fleet::test::test_scratch_dir() / name;
  trace::TraceWriter w(path, trace::Header{});
  for (const auto& b : bodies) w.write_frame(b);
  w.close();
  return path;
}

std::string body(const trace::Op& o) { return trace::encode_record_body(o, trace::Era::Three); }

TEST(ReplaySession, SpeedZeroKeepsFileOrderEvenWhenTimeGoesBack) {
  auto path = write_trace("order.lct", {body(make(trace::OpKind::ReserveWrite, 0.3, 'a')),
                                        body(make(trace::OpKind::FinishWrite, 0.1, 'a')),
                                        body(make(trace::OpKind::ReserveWrite, 0.2, 'b'))});
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  SessionOptions so;
  so.speed = 0;
  ReplaySession s(e, util::RealClock::instance(), so);
  auto r = s.run(src);
  EXPECT_EQ(e.calls, (std::vector<std::string>{"reserve:a", "finish:a", "reserve:b", "close"}));
  EXPECT_EQ(r.total, 3u);
  EXPECT_EQ(r.replayed, 3u);
  EXPECT_EQ(r.lateness.count(), 0u);  // nothing is scheduled at speed 0
}

TEST(ReplaySession, SkippedAndFailedFollowLmcacheRules) {
  auto path = write_trace("rules.lct", {body(make(trace::OpKind::ReserveWrite, 0.0, 'a')),
                                        bad_codec_record(0.1), unknown_qualname_record(0.2),
                                        body(make(trace::OpKind::FinishWrite, 0.3, 'a'))});
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  e.fail_reserve = true;
  SessionOptions so;
  so.speed = 0;
  ReplaySession s(e, util::RealClock::instance(), so);
  std::vector<std::pair<bool, bool>> events;  // (failed, skipped)
  auto r = s.run(src, [&](const RecordEvent& ev) { events.emplace_back(ev.failed, ev.skipped); });
  EXPECT_EQ(r.total, 4u);
  EXPECT_EQ(r.replayed, 1u);
  EXPECT_EQ(r.skipped, 2u);
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0], std::make_pair(true, false));
  EXPECT_EQ(events[1], std::make_pair(true, true));
  EXPECT_EQ(events[2], std::make_pair(true, true));
  EXPECT_EQ(events[3], std::make_pair(false, false));
  // A skipped qualname never appears; a failed one appears with errors only.
  auto summary = r.stats.summary();
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].first, "lmcache.v1.distributed.storage_manager.StorageManager.finish_write");
  EXPECT_EQ(summary[0].second.count, 1u);
  EXPECT_EQ(summary[1].first,
            "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write");
  EXPECT_EQ(summary[1].second.count, 0u);
  EXPECT_EQ(summary[1].second.errors, 1u);
}

TEST(ReplaySession, VirtualClockDispatchesExactlyOnSchedule) {
  auto path = write_trace("paced.lct", {body(make(trace::OpKind::ReserveWrite, 5.0, 'a')),
                                        body(make(trace::OpKind::FinishWrite, 5.5, 'a')),
                                        body(make(trace::OpKind::ReserveWrite, 7.0, 'b'))});
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  util::VirtualClock clock(1000);
  SessionOptions so;
  so.speed = 2.0;
  so.virtual_drain_ns = 0;
  ReplaySession s(e, clock, so);
  auto r = s.run(src);
  EXPECT_EQ(r.replayed, 3u);
  EXPECT_EQ(r.lateness.count(), 3u);
  EXPECT_EQ(r.lateness.max_ns(), 0);
  EXPECT_EQ(r.lateness.late_over_1ms(), 0u);
  // (7.0 - 5.0) / speed 2 = 1 s of virtual time from the first record.
  EXPECT_DOUBLE_EQ(r.duration_s, 1.0);
  EXPECT_EQ(r.first_dispatch_ns, 1000);
}

TEST(ReplaySession, FromZeroWaitsOutTheLeadingIdleTime) {
  auto path = write_trace("lead.lct", {body(make(trace::OpKind::ReserveWrite, 3.0, 'a'))});
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  util::VirtualClock clock(0);
  SessionOptions so;
  so.t_origin = 0.0;
  so.virtual_drain_ns = 0;
  ReplaySession s(e, clock, so);
  auto r = s.run(src);
  EXPECT_DOUBLE_EQ(r.duration_s, 3.0);
}

TEST(ReplaySession, RealClockPacingIsNeverEarly) {
  std::vector<std::string> bodies;
  for (int i = 0; i < 20; ++i)
    bodies.push_back(body(make(trace::OpKind::FinishWrite, i * 0.002, 'a')));
  auto path = write_trace("real.lct", bodies);
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  ReplaySession s(e, util::RealClock::instance(), SessionOptions{});
  auto r = s.run(src);
  EXPECT_EQ(r.replayed, 20u);
  EXPECT_EQ(r.lateness.count(), 20u);
  EXPECT_EQ(r.lateness.early_count(), 0u);
  EXPECT_GE(r.duration_s, 0.038);
}

TEST(ReplaySession, DanglingEntersAreClosedButNotCounted) {
  auto path = write_trace("dangle.lct", {body(make(trace::OpKind::ReadEnter, 0.0, 'a')),
                                         body(make(trace::OpKind::ReadEnter, 0.1, 'b'))});
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  RecordingEngine e;
  SessionOptions so;
  so.speed = 0;
  ReplaySession s(e, util::RealClock::instance(), so);
  auto r = s.run(src);
  EXPECT_EQ(r.total, 2u);
  EXPECT_EQ(r.replayed, 2u);
  EXPECT_EQ(r.dispatch.dangling_contexts_closed, 2u);
  EXPECT_EQ(e.calls,
            (std::vector<std::string>{"enter:a#1", "enter:b#2", "exit:a", "exit:b", "close"}));
}

}  // namespace
}  // namespace fleet::replay
