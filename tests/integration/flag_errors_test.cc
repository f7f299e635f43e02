// Every binary's flag errors read as a person would write them (issue 39): a number out of range
// names the flag, the bound and the value typed ("--speed: must be ≥ 0, got -3", not CLI11's
// 309-digit bound), an enum flag lists the names it accepts, and both end with exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "process_util.h"

namespace fleet::test {
namespace {

struct Ran {
  int code = -1;
  std::string err;
};

// `binary ARGS` through the shell, stderr captured (CLI11 prints its errors there).
Ran run(const std::string& binary, const std::string& args) {
  ScratchDir dir;
  const std::string err = (dir.path() / "err").string();
  const int st = std::system((binary + " " + args + " >/dev/null 2>" + err).c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read_file(err)};
}

void expect_refused(const Ran& r, const std::string& message) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected \"" << message << "\" in\n"
                                                    << r.err;
  EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
}

TEST(FlagErrors, CoordinatorRangesReadAsWritten) {
  const std::string coordinator = coordinator_bin();
  expect_refused(run(coordinator, "t.lct --speed -3"), "--speed: must be ≥ 0, got -3");
  expect_refused(run(coordinator, "t.lct --local 300"),
                 "--local: must be between 1 and 256, got 300");
  expect_refused(run(coordinator, "t.lct --window 0"), "--window: must be > 0, got 0");
  expect_refused(run(coordinator, "t.lct --eviction-ratio 1.5"),
                 "--eviction-ratio: must be between 0 and 1, got 1.5");
  expect_refused(run(coordinator, "t.lct --l1-size-gb 0"), "--l1-size-gb: must be > 0, got 0");
  expect_refused(run(coordinator, "t.lct --spin-us -5"),
                 "--spin-us: must be between 0 and 50000, got -5");
  // A worker refuses a start beyond a day too (start_limits.h); inf would overflow the deadline.
  expect_refused(run(coordinator, "t.lct --drain-timeout inf"),
                 "--drain-timeout: must be > 0 and ≤ 86400, got inf");
  expect_refused(run(coordinator, "compare a b --noise 101"),
                 "--noise: must be between 0 and 100, got 101");
}

TEST(FlagErrors, CoordinatorEnumFlagsListTheNames) {
  const std::string coordinator = coordinator_bin();
  expect_refused(run(coordinator, "t.lct --shard rows"),
                 "--shard: must be one of none, time, key, source; got 'rows'");
  expect_refused(run(coordinator, "t.lct --compression lz4"),
                 "--compression: must be one of auto, zstd, none; got 'lz4'");
  expect_refused(run(coordinator, "t.lct --clock wall"),
                 "--clock: must be one of real, virtual; got 'wall'");
}

TEST(FlagErrors, WorkerRangesReadAsWritten) {
  expect_refused(run(worker_bin(), "--heartbeat-ms 5"),
                 "--heartbeat-ms: must be between 10 and 60000, got 5");
  expect_refused(run(worker_bin(), "--spin-us 50001"),
                 "--spin-us: must be between 0 and 50000, got 50001");
  expect_refused(run(worker_bin(), "--max-l1-gb -1"), "--max-l1-gb: must be ≥ 0, got -1");
  expect_refused(run(worker_bin(), "--eviction-tick-ms 0"),
                 "--eviction-tick-ms: must be > 0, got 0");
}

TEST(FlagErrors, LctRangesAndErasReadAsWritten) {
  const std::string lct = bin("tools/lct/lct");
  expect_refused(run(lct, "--max-frame-mb 0 info t.lct"),
                 "--max-frame-mb: must be between 1 and 4095, got 0");
  expect_refused(run(lct, "gen -o x.lct --era 2"), "--era: must be one of 1, 3, 4; got '2'");
}

}  // namespace
}  // namespace fleet::test
