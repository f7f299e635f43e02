// The shared L2 fixture (tests/fixtures/lmcache/l2/, written by an independent encoder): every
// figure of l2_small.expect.json that reading alone determines, read from the JSON itself.
// The per-percent replay plans are the replay's (issue 42 item 2); at 100 % their operation
// counts, bytes, forward edges and source window are reading figures and are asserted here.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fleet/trace/l2_checks.h"
#include "fleet/trace/l2_reader.h"
#include "test_paths.h"

namespace fleet::trace {
namespace {

using Json = nlohmann::json;

std::string fixture() { return ::fleet::test::shared_fixtures() + "/l2/l2_small.lct"; }

// A JSON count as an integer (comparing with the JSON value directly trips GCC 12's
// -Wdangling-pointer inside gtest).
uint64_t n(const Json& j) { return j.get<uint64_t>(); }
int64_t i(const Json& j) { return j.get<int64_t>(); }

Json expected() {
  std::ifstream in(::fleet::test::shared_fixtures() + "/l2/l2_small.expect.json");
  return Json::parse(in);
}

struct Read {
  Header header;
  L2Checks checks;
  ReaderCounters counters;
};

Read read_fixture() {
  L2Reader reader(fixture());
  Read out{reader.header(), L2Checks(), {}};
  L2Record r;
  while (reader.next(r)) out.checks.add(r);
  out.checks.finish({});
  out.counters = reader.counters();
  return out;
}

TEST(L2Fixture, HeaderRecordsAndRequests) {
  const Json e = expected();
  const Read got = read_fixture();
  const L2Summary& s = got.checks.summary();
  EXPECT_EQ(got.header.level, e["header"]["level"].get<std::string>());
  EXPECT_EQ(got.header.format_version, i(e["header"]["format_version"]));
  EXPECT_EQ(got.header.trace_schema_version, i(e["header"]["trace_schema_version"]));
  EXPECT_EQ(got.header.sm_config_digest, e["header"]["sm_config_digest"].get<std::string>());
  EXPECT_EQ(s.records, n(e["records_total"]));
  EXPECT_EQ(Json(s.records_by_qualname), e["records_by_qualname"]);
  EXPECT_EQ(Json(s.ignored_by_qualname), e["ignored_records_by_qualname"]);
  EXPECT_EQ(s.request_ids.size(), n(e["requests"]));
  EXPECT_EQ(Json(s.source_adapters), e["source_adapter_indices"]);
  EXPECT_EQ(Json(s.l2_names), e["l2_names"]);
  EXPECT_EQ(Json(s.cache_salts), e["cache_salts"]);
  EXPECT_EQ(s.submissions, n(e["plans"]["100"]["operations_selected"]));
}

TEST(L2Fixture, EndMarkerAndTime) {
  const Json e = expected();
  const Read got = read_fixture();
  const L2Summary& s = got.checks.summary();
  ASSERT_EQ(s.end_markers.size(), n(e["end_marker"]["count"]));
  EXPECT_EQ(s.end_markers[0].recorder_dropped_count, i(e["end_marker"]["recorder_dropped_count"]));
  EXPECT_EQ(s.end_markers[0].event_bus_dropped_count,
            i(e["end_marker"]["event_bus_dropped_count"]));
  EXPECT_EQ(s.end_markers[0].t_mono, e["t_mono"]["end_marker"].get<double>());
  EXPECT_EQ(s.t_mono.first_record, e["t_mono"]["first_record"].get<double>());
  EXPECT_EQ(s.t_mono.last_record, e["t_mono"]["last_record"].get<double>());
  EXPECT_EQ(s.t_mono.min, e["t_mono"]["min"].get<double>());
  EXPECT_EQ(s.t_mono.max, e["t_mono"]["max"].get<double>());
  EXPECT_EQ(s.t_mono.backward_steps, n(e["t_mono"]["backward_steps"]));
  EXPECT_EQ(s.t_mono.span_seconds(), e["t_mono"]["span_seconds"].get<double>());
  // At 100 % the fork's origin is the first record, and the window runs to the last one.
  EXPECT_EQ(s.t_mono.span_seconds(),
            e["plans"]["100"]["source_submission_window_seconds_at_speedup_1"].get<double>());
}

TEST(L2Fixture, SourceOutcomes) {
  const Json o = expected()["source_outcomes"];
  const Read read = read_fixture();  // holds what the reference below points into
  const L2SourceOutcomes& got = read.checks.summary().outcomes;
  EXPECT_EQ(got.lookup_keys_hit, n(o["lookup_keys_hit"]));
  EXPECT_EQ(got.lookup_keys_total, n(o["lookup_keys_total"]));
  EXPECT_EQ(got.load_keys_succeeded, n(o["load_keys_succeeded"]));
  EXPECT_EQ(got.load_keys_total, n(o["load_keys_total"]));
  EXPECT_EQ(got.store_tasks_succeeded, n(o["store_tasks_succeeded"]));
  EXPECT_EQ(got.store_tasks_failed, n(o["store_tasks_failed"]));
  EXPECT_EQ(got.store_keys_succeeded, n(o["store_keys_succeeded"]));
  EXPECT_EQ(got.store_keys_failed, n(o["store_keys_failed"]));
  EXPECT_EQ(got.store_bytes_transferred, i(o["store_bytes_transferred"]));
}

TEST(L2Fixture, WholeTraceOperationsBytesAndForwardEdges) {
  const Json p = expected()["plans"]["100"];
  const Read got = read_fixture();
  const L2Summary& s = got.checks.summary();
  EXPECT_EQ(s.outcomes.store_bytes_submitted, i(p["bytes_submitted"]["store"]));
  EXPECT_EQ(s.outcomes.load_bytes_submitted, i(p["bytes_submitted"]["load_task"]));
  std::map<std::string, uint64_t> ops;
  for (const auto& [q, n] : s.records_by_qualname) {
    const L2Kind k = l2_kind_from_qualname(q);
    if (is_l2_submission(k)) ops[std::string(l2_op_name(l2_op_of(k)))] = n;
  }
  EXPECT_EQ(Json(ops), p["operations_submitted"]);
  EXPECT_EQ(got.checks.finding("forward_edges").count, n(p["forward_edges"]));
}

TEST(L2Fixture, AcceptedAndLintClean) {
  const Json e = expected();
  const Read got = read_fixture();
  ASSERT_EQ(e["verdict"].get<std::string>(), "accept");
  EXPECT_TRUE(l2_refusals(got.checks.summary(), got.counters).empty());
  EXPECT_EQ(got.checks.problems(), 0u);
  EXPECT_EQ(got.checks.finding("non_monotonic").count, n(e["t_mono"]["backward_steps"]));
}

}  // namespace
}  // namespace fleet::trace
