// A worker's l2_windows is checked when its DONE arrives: what replay/l2_windows.cc writes
// passes, and a malformed one is refused by decode_node_result with the field it got wrong
// (the coordinator then reports that peer instead of failing later while writing the report).
#include "fleet/wire/l2_windows_shape.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/replay/l2_windows.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

nlohmann::json written_by_a_worker() {
  std::vector<engine::L2Op> ops;
  for (int i = 0; i < 50; ++i) {
    ops.push_back({0, i % 2 ? "store" : "load", 1'000'000'000LL * (i / 10), 2000 + i, 4096, true});
  }
  return replay::summarize_l2_ops(ops, 0);
}

std::string refusal(const nlohmann::json& l2) {
  NodeResult r;
  r.name = "node-a";
  r.status = NodeStatus::Ok;
  r.l2_windows = l2;
  try {
    decode_node_result(encode_node_result(r));
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

TEST(L2WindowsShape, WhatAWorkerWritesPasses) {
  const auto l2 = written_by_a_worker();
  ASSERT_EQ(l2["windows"].size(), 5u);
  EXPECT_NO_THROW(check_l2_windows_shape(l2));
  EXPECT_NO_THROW(check_l2_windows_shape(nlohmann::json::object()));
  EXPECT_EQ(refusal(l2), "");
}

TEST(L2WindowsShape, MalformedFieldsAreRefusedByName) {
  const auto good = written_by_a_worker();
  struct Case {
    const char* field;
    nlohmann::json (*mutate)(nlohmann::json);
  };
  const Case cases[] = {
      {"l2_windows: must be an object", [](nlohmann::json) { return nlohmann::json::array(); }},
      {"l2_windows.windows: must be an array",
       [](nlohmann::json j) {
         j["windows"] = 3;
         return j;
       }},
      {"l2_windows.windows[1].t",
       [](nlohmann::json j) {
         j["windows"][1]["t"] = 1.5;
         return j;
       }},
      {"l2_windows.windows[0].ops",
       [](nlohmann::json j) {
         j["windows"][0]["ops"] = "x";
         return j;
       }},
      {"l2_windows.windows[2].ops.load.n",
       [](nlohmann::json j) {
         j["windows"][2]["ops"]["load"]["n"] = -1;
         return j;
       }},
      {"l2_windows.windows[0].ops.store.p99_us",
       [](nlohmann::json j) {
         j["windows"][0]["ops"]["store"].erase("p99_us");
         return j;
       }},
      {"l2_windows.totals.store.bytes",
       [](nlohmann::json j) {
         j["totals"]["store"]["bytes"] = "many";
         return j;
       }},
      {"l2_windows.totals.load.latency_ns",
       [](nlohmann::json j) {
         j["totals"]["load"]["latency_ns"] = {{"buckets", {1}}};
         return j;
       }},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(c.mutate(good));
    EXPECT_NE(why.find("malformed node result"), std::string::npos) << c.field << ": " << why;
    EXPECT_NE(why.find(c.field), std::string::npos) << c.field << ": " << why;
  }
}

}  // namespace
}  // namespace fleet::wire
