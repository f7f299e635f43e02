// Causal pacing in the replay session, on the virtual clock so every instant is exact: a read
// keeps its recorded gap after its prefetch (and holds the records behind it), uniform pacing
// races it and says so, and no edge is ever issued early.
#include <gtest/gtest.h>
#include <unistd.h>

#include <tuple>

#include "fleet/replay/replay_session.h"
#include "fleet/trace/trace_writer.h"
#include "fleet/wire/node_result.h"
#include "recording_engine.h"
#include "scratch_dir.h"

namespace fleet::replay {
namespace {

using testing::key;

// Records the clock at every call.
class TimedEngine : public testing::RecordingEngine {
 public:
  explicit TimedEngine(util::Clock& clock) : clock_(clock) {}
  std::vector<int64_t> at;
  std::vector<int64_t> trace_at;       // follow_trace_time's argument, per call
  std::vector<int64_t> trace_told_at;  // and the clock when it came
  void follow_trace_time(int64_t trace_ns) override {
    trace_at.push_back(trace_ns);
    trace_told_at.push_back(clock_.now_ns());
  }
  // A write-behind store that lands at `store_lands` on the clock (0: none pending).
  int64_t store_lands = 0;
  bool store_pending(const std::vector<trace::ObjectKey>&) const override {
    return !store_in_flight_since_zero && clock_.now_ns() < store_lands;
  }
  // An earlier prefetch of the same keys that finishes at `prefetch_lands` (0: none).
  int64_t prefetch_lands = 0;
  bool prefetch_pending(const std::vector<trace::ObjectKey>&) const override {
    return clock_.now_ns() < prefetch_lands;
  }
  int64_t next_event_ns() const override {
    int64_t next = INT64_MAX;
    for (int64_t lands : {store_lands, prefetch_lands})
      if (clock_.now_ns() < lands) next = std::min(next, lands);
    return next;
  }
  // A store submitted at trace instant 0 and in flight until `store_lands` (backlog tests).
  bool store_in_flight_since_zero = false;
  int64_t oldest_store_trace_ns() const override {
    return store_in_flight_since_zero && clock_.now_ns() < store_lands ? 0 : INT64_MAX;
  }

  int64_t prefetch_takes_ns = 0;  // a slow call: the clock moves while it runs
  engine::CallResult submit_prefetch(const trace::PrefetchSpec& spec, std::string_view id,
                                     bool skip) override {
    at.push_back(clock_.now_ns());
    if (auto* v = dynamic_cast<util::VirtualClock*>(&clock_)) v->advance_by(prefetch_takes_ns);
    return RecordingEngine::submit_prefetch(spec, id, skip);
  }
  engine::CallResult reserve_write(const std::vector<trace::ObjectKey>& keys,
                                   const trace::MemoryLayout& l, trace::WriteMode m) override {
    at.push_back(clock_.now_ns());
    return RecordingEngine::reserve_write(keys, l, m);
  }
  engine::CallResult finish_write(const std::vector<trace::ObjectKey>& keys) override {
    at.push_back(clock_.now_ns());
    return RecordingEngine::finish_write(keys);
  }
  engine::CallResult read_enter(const std::vector<trace::ObjectKey>& keys,
                                engine::ReadContext& ctx) override {
    at.push_back(clock_.now_ns());
    return RecordingEngine::read_enter(keys, ctx);
  }
  engine::CallResult read_exit(engine::ReadContext& ctx) override {
    at.push_back(clock_.now_ns());
    return RecordingEngine::read_exit(ctx);
  }
  engine::CallResult finish_read(const std::vector<trace::ObjectKey>& keys, int64_t n) override {
    at.push_back(clock_.now_ns());
    return RecordingEngine::finish_read(keys, n);
  }

 private:
  util::Clock& clock_;
};

trace::Op make(trace::OpKind kind, double t, char k = 'a') {
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1e9 + t;
  if (kind == trace::OpKind::SubmitPrefetch) {
    o.spec.keys = {key(k)};
  } else {
    o.keys = {key(k)};
  }
  o.layout.shapes = {{4}};
  o.layout.dtypes = {trace::DType::Float16};
  return o;
}

// prefetch a; 5 ms later __enter__(a); __exit__ and finish_read 1 and 2 ms after that.
std::string read_trace() {
  std::string path = fleet::test::test_scratch_dir() / "causal_read.lct";
  trace::TraceWriter w(path, trace::Header{});
  for (auto [kind, t] : {std::pair{trace::OpKind::SubmitPrefetch, 10.000},
                         {trace::OpKind::ReadEnter, 10.005},
                         {trace::OpKind::ReadExit, 10.006},
                         {trace::OpKind::FinishRead, 10.007}})
    w.write_frame(trace::encode_record_body(make(kind, t), trace::Era::Three));
  w.close();
  return path;
}

struct Replayed {
  std::vector<int64_t> at;        // call instants since T0
  std::vector<int64_t> trace_at;  // the trace instants the engine was told, in order
  SessionResult result;
};

Replayed replay(causal::Pacing pacing, double speed,
                causal::Schedule schedule = causal::Schedule::Ordered,
                const std::string& path = read_trace(), bool engine_follows_trace = false,
                int64_t store_lands_after_t0 = 0, double horizon_s = 0.05, bool backlog = false,
                int64_t prefetch_takes_ns = 0, int64_t prefetch_lands_after_t0 = 0) {
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  util::VirtualClock clock(1'000'000);
  TimedEngine e(clock);
  if (store_lands_after_t0) e.store_lands = clock.now_ns() + store_lands_after_t0;
  e.store_in_flight_since_zero = backlog;
  e.prefetch_takes_ns = prefetch_takes_ns;
  if (prefetch_lands_after_t0) e.prefetch_lands = clock.now_ns() + prefetch_lands_after_t0;
  SessionOptions so;
  so.speed = speed;
  so.pacing = pacing;
  so.schedule = schedule;
  so.virtual_drain_ns = 0;
  so.engine_follows_trace = engine_follows_trace;
  so.edge_ttl.horizon_s = horizon_s;
  ReplaySession s(e, clock, so);
  Replayed r{{}, {}, s.run(src)};
  for (int64_t t : e.at) r.at.push_back(t - r.result.t0_ns);
  r.trace_at = e.trace_at;
  return r;
}

constexpr int64_t kUs = 1000;

TEST(CausalSession, AReadKeepsItsRecordedGapAfterItsPrefetchAndHoldsTheRest) {
  const Replayed r = replay(causal::Pacing::Causal, 10);
  // Uniform 10x would issue at 0, 500, 600, 700 us; the enter waits the whole 5 ms after the
  // prefetch's issue, and the ordered dispatcher issues the exit and finish_read right after.
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 5000 * kUs, 5000 * kUs, 5000 * kUs}));
  ASSERT_TRUE(r.result.pacing);
  const causal::PacingStats& p = *r.result.pacing;
  EXPECT_EQ(p.edges[causal::EdgeKind::ReadLifecycle], 1u);
  EXPECT_EQ(p.edges[causal::EdgeKind::EnterExit], 1u);
  EXPECT_EQ(p.edges[causal::EdgeKind::ExitFinish], 1u);
  EXPECT_EQ(p.held_records, 1u);
  EXPECT_EQ(p.hold_ns, 4500 * kUs);
  EXPECT_EQ(p.edge_lateness.count(), 1u);
  EXPECT_EQ(p.edge_lateness.early_count(), 0u);  // never early
  EXPECT_EQ(p.edge_lateness.max_ns(), 0);        // and on the virtual clock, exactly on time
  // Lateness is measured from the causal instant (the exit and finish_read queue behind the
  // held enter in recorded order): nothing was late.
  EXPECT_EQ(r.result.lateness.max_ns(), 0);
  EXPECT_EQ(r.result.lateness.count(), 4u);
}

// A call that runs past its successor's causal instant makes that edge late, and the late edge
// is charged to the previous call (not to the pacer or the engine's events): the prefetch takes
// 6 ms, so the enter, due 5 ms after it, starts 1 ms late.
TEST(CausalSession, AnEdgeLateBehindASlowCallIsChargedToThatCall) {
  const Replayed r = replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, read_trace(),
                            false, 0, 0.05, false, 6000 * kUs);
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 6000 * kUs, 6000 * kUs, 6000 * kUs}));
  ASSERT_TRUE(r.result.pacing);
  const causal::PacingStats& p = *r.result.pacing;
  EXPECT_EQ(p.edges_late_over_slack, 1u);
  EXPECT_EQ(p.edge_lateness.max_ns(), 1000 * kUs);
  EXPECT_EQ(p.late_by_cause[static_cast<size_t>(causal::LateCause::PreviousCall)], 1u);
  uint64_t charged = 0;
  for (uint64_t n : p.late_by_cause) charged += n;
  EXPECT_EQ(charged, p.edges_late_over_slack);
}

// Two reads; the first is held 5 ms by its prefetch, and a slow prefetch of a third key is
// recorded between the two __enter__s. In recorded order the second __enter__, whose own gap edge
// would allow it at 4.2 ms, is due with the first at 5 ms (its edge stretched by 0.8 ms on
// purpose) and starts 100 us later, after the slow call: a record lagging behind the one that
// held it, counted as such and in every record's lateness, not as a late edge.
TEST(CausalSession, ARecordLaggingBehindTheHeldReadIsStretchedNotLate) {
  std::string path = fleet::test::test_scratch_dir() / "causal_lagging.lct";
  {
    trace::TraceWriter w(path, trace::Header{});
    using K = trace::OpKind;
    for (auto [kind, t, k] : {std::tuple{K::SubmitPrefetch, 10.000, 'a'},
                              {K::SubmitPrefetch, 10.001, 'b'},
                              {K::ReadEnter, 10.005, 'a'},
                              {K::SubmitPrefetch, 10.00505, 'c'},
                              {K::ReadEnter, 10.0051, 'b'}})
      w.write_frame(trace::encode_record_body(make(kind, t, k), trace::Era::Three));
    w.close();
  }
  const Replayed r = replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, path, false, 0,
                            0.05, false, 100 * kUs);
  // (The two calls after the fifth close the reads the trace left open, at the run's end.)
  ASSERT_GE(r.at.size(), 5u);
  EXPECT_EQ(std::vector<int64_t>(r.at.begin(), r.at.begin() + 5),
            (std::vector<int64_t>{0, 100 * kUs, 5000 * kUs, 5000 * kUs, 5100 * kUs}));
  ASSERT_TRUE(r.result.pacing);
  const causal::PacingStats& p = *r.result.pacing;
  EXPECT_EQ(p.edges[causal::EdgeKind::ReadLifecycle], 2u);
  EXPECT_EQ(p.edge_lateness.count(), 2u);
  EXPECT_EQ(p.edge_lateness.max_ns(), 900 * kUs);  // 4.1 ms recorded, 5.0 ms kept
  EXPECT_EQ(p.edges_stretched, 1u);
  EXPECT_EQ(p.stretched_late_over_slack, 1u);
  EXPECT_EQ(p.edges_late_over_slack, 0u);            // the first __enter__ was on time
  EXPECT_EQ(r.result.lateness.max_ns(), 100 * kUs);  // the lag is the record's lateness
}

// The engine's time follows the trace, not the wall: told each record's trace instant (since the
// first record) before its call, while the wall squeezes 7 ms of trace into 5 ms.
TEST(CausalSession, AnEngineFollowingTheTraceIsToldEachRecordsTraceInstant) {
  const Replayed r =
      replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, read_trace(), true);
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 5000 * kUs, 5000 * kUs, 5000 * kUs}));
  ASSERT_EQ(r.trace_at.size(), 4u);
  const std::vector<int64_t> want{0, 5000 * kUs, 6000 * kUs, 7000 * kUs};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(r.trace_at[i], want[i], 1) << i;
  ASSERT_TRUE(r.result.pacing);
  EXPECT_TRUE(r.result.pacing->engine_follows_trace);
  EXPECT_TRUE(replay(causal::Pacing::Causal, 10).trace_at.empty());  // not built to follow it
}

// A completion edge: the prefetch waits until the store of its key has landed (3 ms after T0),
// and everything behind it in recorded order keeps its gaps from there.
TEST(CausalSession, APrefetchWaitsForItsKeysStoreToLand) {
  const Replayed r =
      replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, read_trace(), true, 3000 * kUs);
  ASSERT_EQ(r.at.size(), 4u);
  EXPECT_EQ(r.at[0], 3000 * kUs);
  EXPECT_EQ(r.at[1], 8000 * kUs);  // its recorded 5 ms after the prefetch's actual issue
  ASSERT_TRUE(r.result.pacing);
  EXPECT_EQ(r.result.pacing->l2_awaits, 1u);
  EXPECT_EQ(r.result.pacing->l2_await_ns, 3000 * kUs);
  EXPECT_EQ(r.result.pacing->l2_await_timeouts, 0u);
  EXPECT_EQ(r.result.lateness.max_ns(), 0);  // measured from when the store landed
}

// A prefetch also waits for an earlier prefetch of its keys to finish (here 2 ms after T0): at
// 10x a second prefetch of a shared prefix came while the first was still loading, found the
// keys being written into L1 and abandoned its load, where at 1x the first had landed.
TEST(CausalSession, APrefetchWaitsForAnEarlierPrefetchOfItsKeysToFinish) {
  const Replayed r = replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, read_trace(),
                            true, 0, 0.05, false, 0, 2000 * kUs);
  ASSERT_EQ(r.at.size(), 4u);
  EXPECT_EQ(r.at[0], 2000 * kUs);
  EXPECT_EQ(r.at[1], 7000 * kUs);  // its recorded 5 ms after the prefetch's actual issue
  ASSERT_TRUE(r.result.pacing);
  EXPECT_EQ(r.result.pacing->l2_awaits, 1u);
  EXPECT_EQ(r.result.pacing->l2_await_ns, 2000 * kUs);
}

// The backlog rule: no record runs more than the causal horizon (here 4 ms) of trace time ahead
// of the oldest store still in flight (submitted at trace 0, landing 20 ms after T0).
TEST(CausalSession, TheTraceWaitsForAStoreBacklogBeyondTheHorizon) {
  const Replayed r = replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, read_trace(),
                            true, 20000 * kUs, 0.004, true);
  ASSERT_EQ(r.at.size(), 4u);
  EXPECT_EQ(r.at[0], 0);            // trace 0: within the horizon
  EXPECT_EQ(r.at[1], 20000 * kUs);  // trace 5 ms: waits for the store to land
  ASSERT_TRUE(r.result.pacing);
  EXPECT_EQ(r.result.pacing->l2_awaits, 1u);
}

TEST(CausalSession, UniformPacingRacesTheReadAndCountsIt) {
  const Replayed r = replay(causal::Pacing::Uniform, 10);
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 500 * kUs, 600 * kUs, 700 * kUs}));
  ASSERT_TRUE(r.result.pacing);  // tracked: faster than 1x
  EXPECT_EQ(r.result.pacing->raced[static_cast<size_t>(causal::EdgeKind::ReadLifecycle)], 1u);
  EXPECT_EQ(r.result.pacing->held_records, 0u);
}

TEST(CausalSession, UniformAtOneXTracksNothing) {
  const Replayed r = replay(causal::Pacing::Uniform, 1);
  EXPECT_FALSE(r.result.pacing);  // outputs of a 1x run stay byte for byte as they were
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 5000 * kUs, 6000 * kUs, 7000 * kUs}));
}

// prefetch a; __enter__(a) 0.5 ms later; a write of b at 1 ms (0.2 ms long).
std::string overtaking_trace() {
  std::string path = fleet::test::test_scratch_dir() / "causal_overtake.lct";
  trace::TraceWriter w(path, trace::Header{});
  for (const trace::Op& o :
       {make(trace::OpKind::SubmitPrefetch, 10.000), make(trace::OpKind::ReadEnter, 10.0005),
        make(trace::OpKind::ReserveWrite, 10.001, 'b'),
        make(trace::OpKind::FinishWrite, 10.0012, 'b')})
    w.write_frame(trace::encode_record_body(o, trace::Era::Three));
  w.close();
  return path;
}

TEST(CausalSession, PartialLetsAnotherKeysWriteOvertakeAHeldRead) {
  const Replayed r =
      replay(causal::Pacing::Causal, 10, causal::Schedule::Partial, overtaking_trace());
  // Issue order: prefetch a (0), reserve b (its scaled 100 us) while the enter is parked,
  // finish b (held to 100 + 200 us), the enter (0 + 500 us), and the close's __exit__.
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 100 * kUs, 300 * kUs, 500 * kUs, 500 * kUs}));
  ASSERT_TRUE(r.result.pacing);
  EXPECT_EQ(r.result.pacing->overtakes, 1u);  // reserve b went while the enter was parked
  EXPECT_EQ(r.result.pacing->held_records, 2u);
  EXPECT_EQ(r.result.pacing->edge_lateness.early_count(), 0u);
  EXPECT_EQ(r.result.total, 4u);
  EXPECT_EQ(r.result.replayed, 4u);
  EXPECT_EQ(r.result.lateness.max_ns(), 0);
}

TEST(CausalSession, OrderedHoldsTheWriteBehindTheRead) {
  const Replayed r =
      replay(causal::Pacing::Causal, 10, causal::Schedule::Ordered, overtaking_trace());
  // The enter holds everything behind it: reserve b at 500 us, finish b 200 us after that.
  EXPECT_EQ(r.at, (std::vector<int64_t>{0, 500 * kUs, 500 * kUs, 700 * kUs, 700 * kUs}));
  EXPECT_EQ(r.result.pacing->overtakes, 0u);
}

TEST(CausalSession, ThePacingTravelsInTheNodeResult) {
  wire::NodeResult n = to_node_result(replay(causal::Pacing::Causal, 10).result, "n");
  ASSERT_TRUE(n.pacing);
  EXPECT_EQ(n.pacing->held_records, 1u);
}

// A causal 10x replay of `path` on `clock` (the real one) with the engine following the trace.
SessionResult causal_10x_following_the_trace(const std::string& path, util::Clock& clock,
                                             TimedEngine& e) {
  trace::FrameReader reader(path);
  FileRecordSource src(reader);
  SessionOptions so;
  so.speed = 10;
  so.pacing = causal::Pacing::Causal;
  so.engine_follows_trace = true;
  ReplaySession s(e, clock, so);
  return s.run(src);
}

// On the real clock the engine is told a record's trace instant before the pacer's wait, so its
// eviction ticks (which that runs) are not between the wait and the call; but a record that
// must first wait for its keys' store to land is told after that wait, as on the virtual clock.
TEST(CausalSession, TheRealClockTellsTheEngineTheTraceInstantBeforeWaiting) {
  for (const bool store_pending : {false, true}) {
    util::RealClock clock;
    TimedEngine e(clock);
    // 30 ms: still ahead when the run starts, however slowly a sanitizer build on a busy host
    // opens the trace (3 ms was not, once, in CI's ASan stage).
    if (store_pending) e.store_lands = clock.now_ns() + 30'000 * kUs;
    const SessionResult r = causal_10x_following_the_trace(read_trace(), clock, e);
    ASSERT_EQ(e.at.size(), 4u);
    ASSERT_EQ(e.trace_told_at.size(), 4u);
    // The enter is held 5 ms after the prefetch's issue: told right after that issue, not
    // when the wait ends (a margin of 1 ms for a preempted thread).
    EXPECT_LT(e.trace_told_at[1], e.at[1] - 1000 * kUs) << "store pending: " << store_pending;
    EXPECT_GE(e.trace_told_at[1], e.at[0]);
    if (store_pending) {
      EXPECT_GE(e.trace_told_at[0], e.store_lands) << "told before the store it waited for";
      EXPECT_EQ(r.pacing->l2_awaits, 1u);
    }
    for (size_t i = 0; i < 4; ++i) EXPECT_LE(e.trace_told_at[i], e.at[i]) << i;
  }
}

// A record whose L2 work is still to land when its wait begins cannot have the engine follow its
// trace instant then; when the work lands during the wait, the engine is told then, not after
// the wake-up (where the tick it runs would delay the call). A write first, then a prefetch due
// 30 ms after T0 whose key's store lands 1 ms after T0.
TEST(CausalSession, TheEngineFollowsOnceTheL2WorkLandsDuringTheWait) {
  std::string path = fleet::test::test_scratch_dir() / "causal_lands_in_wait.lct";
  {
    trace::TraceWriter w(path, trace::Header{});
    w.write_frame(trace::encode_record_body(make(trace::OpKind::ReserveWrite, 10.000, 'b'),
                                            trace::Era::Three));
    w.write_frame(trace::encode_record_body(make(trace::OpKind::SubmitPrefetch, 10.300, 'a'),
                                            trace::Era::Three));
    w.close();
  }
  util::RealClock clock;
  TimedEngine e(clock);
  e.store_lands = clock.now_ns() + 1000 * kUs;
  const SessionResult r = causal_10x_following_the_trace(path, clock, e);
  ASSERT_GE(e.at.size(), 2u);
  ASSERT_GE(e.trace_told_at.size(), 2u);
  EXPECT_GE(e.trace_told_at[1], e.store_lands);  // never before the store landed
  // Told in the wait, well before the 30-ms call (told after the wake-up, it would be within
  // microseconds of it); 5 ms of margin for a slow, busy host (a sanitizer build, 2 cores).
  EXPECT_LT(e.trace_told_at[1], e.at[1] - 5000 * kUs);
  EXPECT_EQ(r.pacing->l2_awaits, 0u);  // no wait past the record's instant
}

}  // namespace
}  // namespace fleet::replay
