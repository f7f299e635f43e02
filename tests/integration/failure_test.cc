// Failures with real processes: a worker killed with SIGKILL mid-run is detected within 2 s and
// reported (abort: exit 3; continue: the others finish); a coordinator killed mid-run makes its
// workers stop within 2 s and accept the next coordinator, and --local workers do not outlive
// it.
#include <dirent.h>

#include <regex>

#include "fleet/trace/trace_writer.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using namespace std::chrono_literals;

// ~6 s of recorded traffic: at --speed 2 a run lasts ~3 s, long enough to kill something in it.
std::string long_trace() { return synthetic_trace("long", 1800, 1, 50.0); }

// The "no heartbeat for N ms" the coordinator recorded for a lost node.
int64_t lost_after_ms(const nlohmann::json& node) {
  std::smatch m;
  std::string why = node["engine"]["counters"].value("lost_reason", "");
  if (!std::regex_search(why, m, std::regex("no heartbeat for ([0-9]+) ms"))) return -1;
  return std::stoll(m[1]);
}

class WorkerLoss : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkerLoss, KilledWorkerIsDetectedWithin2sAndReported) {
  const std::string policy = GetParam();
  const std::string path = long_trace();
  const TraceCounts tc = count_trace(path);
  TempDir dir;
  WorkerProcess w0(dir.path().string(), "w0", {"--engine", "noop"});
  WorkerProcess w1(dir.path().string(), "w1", {"--engine", "noop"});
  ASSERT_TRUE(w0.ok() && w1.ok()) << w0.proc().err() << w1.proc().err();
  std::filesystem::create_directories(dir / "run");
  Process coord({coordinator_bin(), path, "-q", "--progress", "never", "--workers",
                 w0.host_port() + "," + w1.host_port(), "--shard", "none", "--speed", "2",
                 "--start-delay", "0.3", "--on-worker-loss", policy, "--output-dir",
                 dir / "run"},
                dir / "run", "coordinator");
  // Mid-run: both workers have started replaying (the first progress has been dispatched).
  ASSERT_TRUE(w0.proc().wait_stderr("run started", 15s)) << coord.err();
  ASSERT_TRUE(w1.proc().wait_stderr("run started", 15s)) << coord.err();
  ASSERT_TRUE(coord.running());
  w0.proc().signal(SIGKILL);
  const auto killed = Clock::now();

  auto code = coord.wait_exit(policy == "abort" ? 6s : 20s);
  ASSERT_TRUE(code) << "coordinator still running; stderr:\n" << coord.err();
  const double exit_after_s = std::chrono::duration<double>(Clock::now() - killed).count();
  EXPECT_EQ(*code, 3) << coord.err();
  auto summary = nlohmann::json::parse(read_file(dir / "run/fleet_summary.json"));
  ASSERT_EQ(summary["nodes"].size(), 2u);
  const auto& lost = summary["nodes"][0];
  const auto& other = summary["nodes"][1];
  EXPECT_EQ(lost["status"], "lost");
  EXPECT_EQ(lost["address"], w0.host_port());
  const int64_t detected_ms = lost_after_ms(lost);
  std::cout << "[ measured ] " << policy << ": lost after " << detected_ms
            << " ms of silence; coordinator exited " << exit_after_s << " s after the kill\n";
  EXPECT_GT(detected_ms, 0) << lost.dump();
  EXPECT_LE(detected_ms, 2000);
  EXPECT_TRUE(summary["stopped_early"].get<bool>() || policy == "continue");
  if (policy == "abort") {
    EXPECT_EQ(other["status"], "aborted");
    EXPECT_LT(other["records"]["total"].get<uint64_t>(), tc.records);
    EXPECT_LT(exit_after_s, 4.0);
  } else {
    EXPECT_EQ(other["status"], "ok");
    EXPECT_EQ(other["records"]["total"].get<uint64_t>(), tc.records);
    EXPECT_EQ(other["records"]["failed"], 0);
  }
  EXPECT_TRUE(w1.proc().running()) << "the surviving worker serves the next run";
}

INSTANTIATE_TEST_SUITE_P(Fleet, WorkerLoss, ::testing::Values("abort", "continue"));

// Half a second of writes, then one more write a minute later: a killed coordinator leaves the
// worker's replay waiting out a long idle gap, which must not delay stopping it.
std::string gap_trace(const std::string& path) {
  trace::Header h;
  trace::TraceWriter w(path, h);
  trace::Op o;
  o.keys.resize(1);
  o.keys[0].model_name = "m";
  o.layout.shapes = {{2, 4, 16, 2, 8}};
  o.layout.dtypes = {trace::DType::BFloat16};
  for (int i = 0; i <= 50; ++i) {
    o.kind = trace::OpKind::ReserveWrite;
    o.keys[0].chunk_hash = "c" + std::to_string(i);
    o.t_mono = i < 50 ? 10.0 + i * 0.01 : 70.0;
    w.write_op(o, trace::Era::Three);
  }
  w.close();
  return path;
}

TEST(CoordinatorLoss, WorkerStopsWithin2sAndAcceptsTheNextCoordinator) {
  TempDir dir;
  const std::string path = gap_trace(dir / "gap.lct");
  WorkerProcess w(dir.path().string(), "w", {"--engine", "noop"});
  ASSERT_TRUE(w.ok()) << w.proc().err();
  std::filesystem::create_directories(dir / "first");
  Process first({coordinator_bin(), path, "-q", "--progress", "never", "--workers", w.host_port(),
                 "--speed", "1", "--start-delay", "0.2", "--output-dir", dir / "first"},
                dir / "first", "coordinator");
  ASSERT_TRUE(w.proc().wait_stderr("run started", 15s)) << first.err();
  first.kill_group(SIGKILL);
  const auto killed = Clock::now();
  ASSERT_TRUE(w.proc().wait_stderr("ended: coordinator lost", 5s)) << w.proc().err();
  const double stopped_after_s = std::chrono::duration<double>(Clock::now() - killed).count();
  std::cout << "[ measured ] worker stopped its run " << stopped_after_s
            << " s after the coordinator was killed\n";
  EXPECT_LT(stopped_after_s, 2.0);

  // The next coordinator is welcomed at once (no "busy" refusal, no network thread stuck
  // joining a replay that sleeps through the gap) and completes a run.
  auto small = synthetic_trace("small", 300);
  auto r = run_coordinator(quick_args({small, "--workers", w.host_port(), "--speed", "0",
                                       "--connect-timeout", "1500"}),
                           dir / "second", 20s);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.summary["records"]["total"], count_trace(small).records);
  const double accepted_after_s = std::chrono::duration<double>(Clock::now() - killed).count();
  std::cout << "[ measured ] next coordinator finished " << accepted_after_s
            << " s after the kill\n";
  EXPECT_TRUE(w.proc().running());
}

// Direct children of `pid` (its --local workers).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(tasks.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::istringstream in(read_file(tasks + "/" + e->d_name + "/children"));
    for (pid_t c; in >> c;) out.push_back(c);
  }
  closedir(d);
  return out;
}

bool alive(pid_t pid) {
  // A zombie is gone for our purpose (its parent is dead; init reaps it).
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] != 'Z';
}

TEST(CoordinatorLoss, LocalWorkersDoNotOutliveTheirCoordinator) {
  const std::string path = long_trace();
  TempDir dir;
  std::filesystem::create_directories(dir / "run");
  Process coord({coordinator_bin(), path, "--progress", "never", "--local", "2", "--speed", "1",
                 "--engine", "noop", "--start-delay", "0.2", "--output-dir", dir / "run"},
                dir / "run", "coordinator");
  ASSERT_TRUE(coord.wait_stderr("start: T0", 20s)) << coord.err();
  auto workers = children_of(coord.pid());
  ASSERT_EQ(workers.size(), 2u);
  coord.signal(SIGKILL);  // the coordinator only: its workers must notice by themselves
  const auto killed = Clock::now();
  bool gone = wait_for([&] { return !alive(workers[0]) && !alive(workers[1]); }, 5s);
  const double after_s = std::chrono::duration<double>(Clock::now() - killed).count();
  std::cout << "[ measured ] --local workers exited " << after_s << " s after the coordinator\n";
  EXPECT_TRUE(gone) << "orphaned --local workers";
  EXPECT_LT(after_s, 2.0);
  for (pid_t p : workers) kill(p, SIGKILL);  // bounded cleanup if the assertion failed
}

}  // namespace
}  // namespace fleet::test
