// Credit-based flow control keeps the coordinator's memory bounded: streaming a 60 MB trace
// (more than 10x the bytes a 2-batch credit window plus the pending queue can hold) to one
// worker, the coordinator's peak RSS stays far below the trace size.
#include <sys/stat.h>

#include "fleet_fixture.h"

// (kSanitized, fleet_fixture.h: ASan/TSan RSS includes shadow memory and quarantine.)

namespace fleet::test {
namespace {

TEST(CreditFlow, CoordinatorPeakRssStaysFarBelowTheTraceSize) {
  if (kSanitized) GTEST_SKIP() << "sanitizer build: RSS includes shadow memory and quarantine";
  // tp=8 and long contexts: many keys per record, so 60 MB needs few records and the run is fast.
  const std::string path = synthetic_trace("big", 0, 8, 200.0, 60ull << 20);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  const uint64_t trace_bytes = static_cast<uint64_t>(st.st_size);
  ASSERT_GE(trace_bytes, 50ull << 20);
  const TraceCounts tc = count_trace(path);
  ScratchDir dir;
  auto r = run_coordinator(quick_args({path, "--local", "1", "--engine", "noop", "--speed", "0",
                                       "--credit-window", "2"}),
                           dir / "run", std::chrono::seconds(90));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.summary["records"]["total"].get<uint64_t>(), tc.records);
  const uint64_t peak = r.summary["coordinator"]["peak_rss_bytes"].get<uint64_t>();
  std::cout << "[ measured ] trace " << trace_bytes / 1024 << " KiB, " << tc.records
            << " records; coordinator peak RSS " << peak / 1024 << " KiB\n";
  EXPECT_GT(peak, 0u);
  // The window holds 2 batches in flight + 4 pending per worker (<= 256 KiB raw each, less
  // compressed): a few MiB. A coordinator that buffered the trace would need ~60 MiB.
  EXPECT_LT(peak, trace_bytes / 3);
}

}  // namespace
}  // namespace fleet::test
