// A worker's --spin-us (docs/scaling.md, "256 real worker processes"): with 0 its pacer sleeps
// all the way to each record's instant instead of spinning the last 300 us, for hosts shared by
// more workers than cores. The run must stay complete and paced.
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

TEST(WorkerSpin, ASpinFreeWorkerReplaysEveryRecordPaced) {
  ScratchDir dir;
  const std::string path = synthetic_trace("spin_free", 300, 1, 100.0);
  const TraceCounts trace = count_trace(path);
  auto r = run_coordinator(quick_args({path, "--local", "2", "--engine", "noop", "--speed", "1",
                                       "--local-worker-arg=--spin-us=0"}),
                           dir / "run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.summary["records"]["total"], 2 * trace.records);  // --shard none: each replays all
  EXPECT_EQ(r.summary["nodes"].size(), 2u);
  // Paced, not run flat out: the replay lasts the trace's span, and a sleeping pacer is late by
  // its wake-up (tens of microseconds here), not by milliseconds.
  EXPECT_GT(r.summary["duration_s"].get<double>(), 0.9 * (trace.t_last - trace.t_first));
  EXPECT_LT(r.summary["lateness_us"]["p50"].get<double>(), 20000.0);
}

// The coordinator's --spin-us: its embedded replay's clock, and passed on to --local workers.
TEST(WorkerSpin, TheEmbeddedReplayAndLocalWorkersTakeTheCoordinatorsSpin) {
  ScratchDir dir;
  const std::string path = synthetic_trace("spin_free", 300, 1, 100.0);
  const TraceCounts trace = count_trace(path);
  for (const char* local : {"0", "1"}) {
    SCOPED_TRACE(local);
    std::vector<std::string> args = {path, "--engine", "noop", "--speed", "1", "--spin-us", "0"};
    if (std::string(local) != "0") args.insert(args.end(), {"--local", local});
    auto r = run_coordinator(quick_args(args), dir / (std::string("run") + local));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.summary["records"]["total"], trace.records);
    EXPECT_GT(r.summary["duration_s"].get<double>(), 0.9 * (trace.t_last - trace.t_first));
  }
}

}  // namespace
}  // namespace fleet::test
