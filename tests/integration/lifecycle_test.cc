// Time sharding never splits a lifecycle: a write reserved at t=0.9 and finished at t=1.3, and
// a read whose prefetch is in window 0 and whose enter/exit/finish are in window 1, stay on
// one worker (the plan counts them as moved) and replay on the native engine with no
// KEY_NOT_EXIST anywhere — which is what a split lifecycle would produce.
#include "fleet/trace/trace_writer.h"
#include "fleet_fixture.h"

namespace fleet::test {
namespace {

using trace::OpKind;

trace::Op make(OpKind kind, double t, const std::string& chunk) {
  trace::ObjectKey k;
  k.chunk_hash = chunk;
  k.model_name = "m";
  trace::MemoryLayout layout;
  layout.shapes = {{2, 4, 16, 2, 8}};
  layout.dtypes = {trace::DType::BFloat16};
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1.7e9 + t;
  if (kind == OpKind::SubmitPrefetch) {
    o.spec.keys = {k};
    o.spec.group_layouts[0] = layout;
  } else {
    o.keys = {k};
  }
  if (kind == OpKind::ReserveWrite) o.layout = layout;
  return o;
}

std::string write_lifecycle_trace(const std::string& path) {
  trace::Header h;
  h.t_mono_start = 100.0;
  h.t_wall_start = 1.7e9 + 100.0;
  trace::TraceWriter w(path, h);
  const struct {
    OpKind kind;
    double t;
    const char* chunk;
  } recs[] = {
      {OpKind::ReserveWrite, 100.0, "A"}, {OpKind::FinishWrite, 100.1, "A"},
      {OpKind::ReserveWrite, 100.2, "E"}, {OpKind::FinishWrite, 100.3, "E"},
      {OpKind::ReserveWrite, 100.9, "B"}, {OpKind::SubmitPrefetch, 100.95, "E"},
      {OpKind::ReadEnter, 101.05, "E"},   {OpKind::ReadExit, 101.1, "E"},
      {OpKind::FinishRead, 101.2, "E"},   {OpKind::FinishWrite, 101.3, "B"},  // spans 1.0
      {OpKind::ReserveWrite, 101.4, "C"}, {OpKind::FinishWrite, 101.5, "C"},
      {OpKind::ReserveWrite, 102.2, "D"}, {OpKind::FinishWrite, 102.3, "D"},
  };
  for (const auto& r : recs) w.write_op(make(r.kind, r.t, r.chunk), trace::Era::Three);
  w.close();
  return path;
}

void expect_no_split_lifecycle(const nlohmann::json& summary) {
  for (const auto& n : summary["nodes"]) {
    const auto& c = n["engine"]["counters"];
    ASSERT_TRUE(c.contains("finish_write_not_exist_keys")) << n.dump();
    EXPECT_EQ(c["finish_write_not_exist_keys"], 0) << n["name"];
    EXPECT_EQ(c["finish_read_not_exist_keys"], 0) << n["name"];
    EXPECT_EQ(c["read_failed_not_found_keys"], 0) << n["name"];
    EXPECT_EQ(n["records"]["failed"], 0) << n["name"];
  }
}

TEST(TimeSharding, PlanMovesOpenLifecyclesWhole) {
  ScratchDir dir;
  std::string path = write_lifecycle_trace(dir / "lifecycle.lct");
  auto r = run_coordinator(
      {path, "--local", "2", "--shard", "time", "--window", "1", "--plan-only", "--format", "json"},
      dir / "plan");
  ASSERT_EQ(r.code, 0) << r.err;
  auto plan = plan_json_from_stdout(r.out);
  ASSERT_FALSE(plan.is_null()) << r.out;
  EXPECT_EQ(plan["records"], 14);
  // Window 0 keeps B's finish_write and E's enter/exit/finish_read: 4 moved records.
  EXPECT_EQ(plan["workers"][0]["moved"], 4);
  // Worker 0: window 0 (10 records with the moved ones) + D in window 2; worker 1: C.
  EXPECT_EQ(plan["workers"][0]["records"], 12);
  EXPECT_EQ(plan["workers"][1]["moved"], 0);
  EXPECT_EQ(plan["workers"][1]["records"], 2);
  EXPECT_EQ(plan["workers"][0]["ops"]["finish_write"], 4);
}

TEST(TimeSharding, NativeEngineSeesNoSplitLifecycle) {
  ScratchDir dir;
  std::string path = write_lifecycle_trace(dir / "lifecycle.lct");
  for (const char* shard : {"time", "key"}) {
    SCOPED_TRACE(shard);
    auto r =
        run_coordinator(quick_args({path, "--local", "2", "--shard", shard, "--window", "1",
                                    "--speed", "0", "--engine", "native", "--l1-size-gb", "1"}),
                        dir / shard);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.summary["records"]["total"], 14);
    expect_no_split_lifecycle(r.summary);
    uint64_t writes = 0;
    for (const auto& n : r.summary["nodes"]) {
      writes += n["engine"]["counters"]["finish_write_ok_keys"].get<uint64_t>();
    }
    EXPECT_EQ(writes, 5u);  // A, E, B, C, D each finished exactly once, where reserved
  }
}

}  // namespace
}  // namespace fleet::test
