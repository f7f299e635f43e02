// The plan as rows (plan_table.h): a worker that routes itself sends its row in DONE, and the
// coordinator prints the plan from those rows; both must print exactly what the router does.
#include "fleet/plan/plan_table.h"

#include <gtest/gtest.h>

#include "plan_test_util.h"

namespace fleet::plan {
namespace {

using plantest::key;
using plantest::op;
using plantest::Records;
using trace::OpKind;

ShardRouter routed_key_plan() {
  RouterOptions o;
  o.mode = ShardMode::Key;
  o.worker_names = {"a", "b", "c"};
  o.encode_split_parts = false;
  ShardRouter r(o);
  Records recs;
  for (int i = 0; i < 40; ++i) {
    r.route(recs.add(op(OpKind::ReserveWrite, 100.0 + i,
                        {key("x" + std::to_string(i)), key("y" + std::to_string(i))})));
    r.route(recs.add(op(OpKind::FinishWrite, 100.5 + i, {key("x" + std::to_string(i))})));
  }
  return r;
}

TEST(PlanTable, ARowRoundTripsThroughItsJson) {
  const ShardRouter r = routed_key_plan();
  for (const PlanRow& row : r.rows()) {
    Result<PlanRow> back = plan_row_from_json(nlohmann::json(plan_row_json(row)));
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(back.value(), row);
  }
  EXPECT_GT(r.split_calls(), 0u) << "two keys on three workers should split some calls";
}

TEST(PlanTable, RowsFromElsewherePrintAsTheRouterDoes) {
  const ShardRouter r = routed_key_plan();
  std::vector<PlanRow> rows;
  for (const PlanRow& row : r.rows())  // as the coordinator gets them: through JSON
    rows.push_back(plan_row_from_json(nlohmann::json(plan_row_json(row))).value());
  const std::vector<std::string> names = {"a", "b", "c"};
  EXPECT_EQ(plan_json(r.totals(), names, rows).dump(), r.plan_json().dump());
  EXPECT_EQ(render_plan(r.totals(), names, rows), r.render_plan());
}

TEST(PlanTable, ARowWithAnUnknownOpKindOrAMissingFieldIsRefusedByName) {
  nlohmann::json j = nlohmann::json(plan_row_json(PlanRow{}));
  j["ops"]["teleport"] = 3;
  Result<PlanRow> unknown = plan_row_from_json(j);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().message().find("teleport"), std::string::npos);
  j = nlohmann::json(plan_row_json(PlanRow{}));
  j.erase("moved");
  Result<PlanRow> missing = plan_row_from_json(j);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("moved"), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace fleet::plan
