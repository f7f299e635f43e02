// The replay plan (docs/l2-traces.md, "The replay plan"): the shared fixture's expected plan
// figures per --trace-percent (selection, edges, forward edges, overlaps, preparation, bytes,
// and the edge and prepare sets byte for byte through their SHA-256), each dependency rule on a
// hand-built trace, and every refusal with its message naming the file.
#include "fleet/l2replay/l2_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fleet/l2replay/l2_plan_digest.h"
#include "l2_trace_builder.h"
#include "test_paths.h"

namespace fleet::l2replay {
namespace {

using namespace ::testing;
using ::testing::HasSubstr;
using Json = nlohmann::json;

std::string fixture() { return ::fleet::test::shared_fixtures() + "/l2/l2_small.lct"; }
Json expected_plans() {
  std::ifstream in(::fleet::test::shared_fixtures() + "/l2/l2_small.expect.json");
  return Json::parse(in)["plans"];
}
uint64_t n(const Json& j) { return j.get<uint64_t>(); }

L2Plan plan_of(const std::string& path, double percent = 100) {
  L2PlanOptions o;
  o.trace_percent = percent;
  Result<L2Plan> plan = build_l2_plan(path, o);
  if (!plan) throw std::runtime_error(plan.status().message());  // the test helper's way out
  return std::move(plan).value();
}

std::map<std::string, uint64_t> ops_by_kind(const L2Plan& p) {
  std::map<std::string, uint64_t> out;
  for (const auto& op : p.ops) ++out[std::string(trace::l2_op_name(op.op))];
  return out;
}

class FixturePlan : public ::testing::TestWithParam<int> {};

TEST_P(FixturePlan, ReproducesTheExpectedFigures) {
  const Json e = expected_plans()[std::to_string(GetParam())];
  const L2Plan p = plan_of(fixture(), GetParam());
  EXPECT_EQ(p.source_operations_total, 189u);
  EXPECT_EQ(p.ops.size(), n(e["operations_selected"]));
  EXPECT_EQ(Json(ops_by_kind(p)), e["operations_submitted"]);
  EXPECT_EQ(Json(p.edge_counts), e["dependency_edges"]);
  EXPECT_EQ(p.forward_edges, n(e["forward_edges"]));
  EXPECT_EQ(p.overlapping_store_hits, n(e["overlapping_store_hits"]));
  EXPECT_EQ(p.prepare.size(), n(e["prepare_objects"]));
  EXPECT_EQ(p.prepare_bytes(), n(e["prepare_bytes"]));
  uint64_t store = 0, load = 0;
  for (const auto& op : p.ops) {
    if (op.op == L2Op::Store) store += p.bytes(op);
    if (op.op == L2Op::LoadTask) load += p.bytes(op);
  }
  EXPECT_EQ(store, n(e["bytes_submitted"]["store"]));
  EXPECT_EQ(load, n(e["bytes_submitted"]["load_task"]));
  EXPECT_DOUBLE_EQ(p.trace_submission_window_seconds(),
                   e["source_submission_window_seconds_at_speedup_1"].get<double>());
  EXPECT_EQ(edge_list_sha256(p), e["edge_list_sha256"].get<std::string>());
  EXPECT_EQ(prepare_keys_sha256(p), e["prepare_keys_sha256"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(Percent, FixturePlan, ::testing::Values(100, 50, 10));

TEST(L2Plan, WorkedExampleEdges) {
  const L2Plan p = plan_of(build::worked_example().write("worked"));
  ASSERT_EQ(p.ops.size(), 4u);  // store, lookup, load, unlock
  EXPECT_THAT(p.deps(p.ops[0]), IsEmpty());
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(0u));  // lookup -> store
  EXPECT_THAT(p.deps(p.ops[2]), ElementsAre(1u));  // load -> lookup
  EXPECT_THAT(p.deps(p.ops[3]), ElementsAre(2u));  // unlock -> load
  EXPECT_THAT(p.prepare, IsEmpty());
}

TEST(L2Plan, HalfOfTheWorkedExampleKeepsStoreAndLookup) {
  const L2Plan p = plan_of(build::worked_example().write("worked50"), 50);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[1].op, L2Op::LookupTask);
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(0u));
}

TEST(L2Plan, WithoutItsStoreTheKeyIsPrepared) {
  using build::key;
  build::L2TraceBuilder b;
  b.lookup(11, 2, {key(7)}).lookup_done(11, 2, {0});
  b.load(11, 3, {key(7)}).load_done(11, 3, {0}).unlock(11, {key(7)}).end();
  const L2Plan p = plan_of(b.write("prepare"));
  ASSERT_EQ(p.prepare.size(), 1u);
  EXPECT_EQ(p.prepare[0].key, key(7));
  EXPECT_EQ(p.prepare[0].size, 4096u);
}

TEST(L2Plan, StoreCompletingWhileTheLookupIsInFlightGivesNoEdge) {
  using build::key;
  build::L2TraceBuilder b;
  b.store(1, {key(1)}).lookup(5, 2, {key(1)}).store_done(1).lookup_done(5, 2, {0}).end();
  const L2Plan p = plan_of(b.write("overlap"));
  EXPECT_THAT(p.deps(p.ops[1]), IsEmpty());
  EXPECT_EQ(p.overlapping_store_hits, 1u);
  EXPECT_THAT(p.prepare, IsEmpty()) << "the store completed before the lookup did";
}

TEST(L2Plan, LookupWaitsForTheLatestSuccessfulStoreOnly) {
  using build::key;
  build::L2TraceBuilder b;
  b.store(1, {key(1)}).store_done(1);         // op 0
  b.store(2, {key(1)}).store_done(2);         // op 1: the latest before the lookup
  b.store(3, {key(1)}).store_done(3, false);  // op 2: failed
  b.store(4, {key(2)}).store_done(4);         // op 3: a key the lookup missed
  b.lookup(9, 5, {key(1), key(2)}).lookup_done(9, 5, {0}).end();
  const L2Plan p = plan_of(b.write("latest"));
  EXPECT_THAT(p.deps(p.ops[4]), ElementsAre(1u));
  EXPECT_EQ(p.edge_counts.at("lookup_task->store"), 1u);
}

// The fork indexes completions by TaskKey over the whole file: one recorded before its
// submission (the recorder's threads publish in either order) still gives the op its outcome.
TEST(L2Plan, ACompletionBeforeItsSubmissionStillCounts) {
  using build::key;
  build::L2TraceBuilder b;
  b.store_done(1).store(1, {key(1)});  // op 0: completed (first in the file)
  b.lookup_done(9, 5, {0})
      .lookup(9, 5, {key(1)})  // op 1: its hit is known too
      .end();
  const L2Plan p = plan_of(b.write("early"));
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_TRUE(p.ops[0].source_completed);
  EXPECT_TRUE(p.ops[0].source_succeeded);
  EXPECT_EQ(p.ops[0].completion_sequence, 0u);
  EXPECT_TRUE(p.ops[1].source_completed);
  EXPECT_THAT(p.source_indices(p.ops[1]), ElementsAre(0));
  // The store completed (record 0) before the lookup's submission (record 3): its edge.
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(0u));
}

// Every submission of a reused TaskKey gets the key's latest completion, wherever it lies.
TEST(L2Plan, AReusedTaskKeyGivesEveryOpTheLatestCompletion) {
  using build::key;
  build::L2TraceBuilder b;
  b.store(1, {key(1)}).store_done(1, false);  // op 0, then a failed completion
  b.store(1, {key(2)}).store_done(1, true);   // op 1, same TaskKey: the latest succeeds
  b.store(1, {key(3)}).end();                 // op 2: no completion after it, the latest holds
  const L2Plan p = plan_of(b.write("reused"));
  ASSERT_EQ(p.ops.size(), 3u);
  for (const L2PlanOp& op : p.ops) {
    EXPECT_TRUE(op.source_completed);
    EXPECT_TRUE(op.source_succeeded);
    EXPECT_EQ(op.completion_sequence, 3u);
  }
}

TEST(L2Plan, UnlockBeforeItsLoadIsAForwardEdge) {
  using build::key;
  build::L2TraceBuilder b;
  b.lookup(3, 1, {key(1), key(2)}).lookup_done(3, 1, {0, 1});
  b.unlock(3, {key(2)});  // hits outside the load plan, before the load
  b.load(3, 2, {key(1)}).load_done(3, 2, {0});
  b.unlock(3, {key(1)}).end();
  const L2Plan p = plan_of(b.write("forward"));
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(2u));  // the unlock waits for the later load
  EXPECT_EQ(p.forward_edges, 1u);
}

TEST(L2Plan, UnlockWithoutALoadWaitsForTheLookup) {
  using build::key;
  build::L2TraceBuilder b;
  b.lookup(4, 1, {key(1)}).lookup_done(4, 1, {0}).unlock(4, {key(1)}).end();
  const L2Plan p = plan_of(b.write("noload"));
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(0u));
  EXPECT_EQ(p.edge_counts.at("unlock->lookup_task"), 1u);
}

TEST(L2Plan, FirstLookupMissMeansNeverPrepared) {
  using build::key;
  build::L2TraceBuilder b;
  b.lookup(1, 1, {key(1)}).lookup_done(1, 1, {});
  b.lookup(2, 2, {key(1)}).lookup_done(2, 2, {0}).end();
  EXPECT_THAT(plan_of(b.write("firstmiss")).prepare, IsEmpty());
}

TEST(L2Plan, SaltsAreDifferentObjects) {
  using build::key;
  build::L2TraceBuilder b;
  b.store(1, {key(1, "tenant-a")}).store_done(1);
  b.lookup(1, 2, {key(1, "tenant-a"), key(1, "tenant-b")}).lookup_done(1, 2, {0, 1}).end();
  const L2Plan p = plan_of(b.write("salts"));
  EXPECT_THAT(p.deps(p.ops[1]), ElementsAre(0u));
  ASSERT_EQ(p.prepare.size(), 1u);
  EXPECT_EQ(p.prepare[0].key, key(1, "tenant-b"));
}

TEST(L2Plan, StoreOutsideTheSelectionNeverCounts) {
  using build::key;
  build::L2TraceBuilder b;
  // The store overlaps the lookup: with it selected the key existed before the lookup completed
  // (not prepared); cut away at 50 % (1 of 2 submissions) it never counts, and the key is.
  b.lookup(1, 1, {key(1)}).store(3, {key(1)}).store_done(3).lookup_done(1, 1, {0}).end();
  const std::string path = b.write("cut");
  const L2Plan all = plan_of(path);
  EXPECT_THAT(all.prepare, IsEmpty());
  EXPECT_EQ(all.overlapping_store_hits, 1u);
  const L2Plan half = plan_of(path, 50);
  ASSERT_EQ(half.ops.size(), 1u);
  ASSERT_EQ(half.prepare.size(), 1u);
  EXPECT_EQ(selected_count(3, 34), 2u);
  EXPECT_EQ(selected_count(189, 50), 95u);
  EXPECT_EQ(selected_count(189, 10), 19u);
}

// ---------------------------------------------------------------- refusals

void expect_refused(const std::string& path, const std::string& what, double percent = 100) {
  L2PlanOptions o;
  o.trace_percent = percent;
  const Result<L2Plan> plan = build_l2_plan(path, o);
  ASSERT_FALSE(plan.ok()) << "accepted: " << path;
  EXPECT_THAT(plan.status().message(), HasSubstr(path));
  EXPECT_THAT(plan.status().message(), HasSubstr(what));
}

TEST(L2PlanRefuses, MissingEndMarker) {
  build::L2TraceBuilder b;
  b.store(1, {build::key(1)}).store_done(1);
  expect_refused(b.write("noend"), "incomplete L2 trace: missing end marker");
}

TEST(L2PlanRefuses, DuplicateEndMarker) {
  expect_refused(build::worked_example().end().write("twoends"),
                 "invalid L2 trace: duplicate end marker");
}

TEST(L2PlanRefuses, Drops) {
  build::L2TraceBuilder b;
  b.store(1, {build::key(1)}).store_done(1).end(2, 3);
  expect_refused(b.write("drops"), "incomplete L2 trace: recorder_dropped=2, event_bus_dropped=3");
}

TEST(L2PlanRefuses, TwoSourceAdapters) {
  build::L2TraceBuilder b;
  b.store(1, {build::key(1)}).adapter(1).store(1, {build::key(2)}).end();
  expect_refused(b.write("adapters"), "L2 replay currently supports one source adapter");
}

TEST(L2PlanRefuses, LookupWithoutLayout) {
  build::L2TraceBuilder b;
  b.lookup(1, 1, {build::key(1)}, /*layout_bytes=*/0).lookup_done(1, 1, {0}).end();
  expect_refused(b.write("nolayout"), "L2 lookup submission is missing layout metadata");
}

// One request id over thousands of lookups and loads would make every load wait for every
// lookup: memory quadratic in them. The plan stops at 64 edges per operation, by name.
TEST(L2PlanRefuses, ARequestIdSharedByThousandsOfOperations) {
  build::L2TraceBuilder b;
  for (int i = 0; i < 3000; ++i) b.lookup(0, i, {build::key(i % 200)});
  for (int i = 0; i < 3000; ++i) b.load(0, 10000 + i, {build::key(i % 200)});
  b.end();
  expect_refused(b.write("shared-request"),
                 "request 0 has 3000 lookups and 3000 loads: its dependency edges would pass 64 "
                 "per operation of the plan");
}

TEST(L2PlanRefuses, PercentOutOfRange) {
  const std::string path = build::worked_example().write("percent");
  expect_refused(path, "--trace-percent must be finite and in (0, 100]", 0);
  expect_refused(path, "--trace-percent must be finite and in (0, 100]", 100.5);
}

TEST(L2PlanRefuses, StorageTrace) {
  expect_refused(build::worked_example().write("storage", "storage"), "not \"l2\"");
}

}  // namespace
}  // namespace fleet::l2replay
