// DONE carries a node's L2 failure records when it has some (and only then: a DONE without
// failures is the same bytes as before), and a malformed record is a ProtocolError naming it.
#include <gtest/gtest.h>

#include <string>

#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

NodeResult with_samples() {
  NodeResult r;
  r.name = "w1";
  for (int i = 0; i < 100; ++i) r.stats.record("finish_write", 0.01 * i, false);
  r.total = 100;
  return r;
}

stats::L2FailureRecord refused() {
  stats::L2FailureRecord f;
  f.adapter = 0;
  f.type = "resp";
  f.record(0, 1'500'000'000, "SET refused by 127.0.0.1:6379: OOM command not allowed");
  f.record(1, 4'000'000'000, "connect 127.0.0.1:6379: Connection refused");
  return f;
}

TEST(L2FailuresInDone, TravelOnlyWhenThereAreSome) {
  NodeResult r = with_samples();
  EXPECT_EQ(encode_node_result(r).find("l2_failures"), std::string::npos);
  EXPECT_TRUE(decode_node_result(encode_node_result(r)).l2_failures.empty());

  r.l2_failures = {refused()};
  const NodeResult back = decode_node_result(encode_node_result(r));
  ASSERT_EQ(back.l2_failures.size(), 1u);
  const auto& f = back.l2_failures[0];
  EXPECT_EQ(f.type, "resp");
  EXPECT_EQ(f.failed, 2u);
  EXPECT_EQ(f.by_op[0], 1u);
  EXPECT_EQ(f.by_op[1], 1u);
  EXPECT_EQ(f.first_ns, 1'500'000'000);
  EXPECT_EQ(f.first_error, "SET refused by 127.0.0.1:6379: OOM command not allowed");
  EXPECT_EQ(f.last_ns, 4'000'000'000);
  EXPECT_EQ(f.last_error, "connect 127.0.0.1:6379: Connection refused");
  EXPECT_EQ(back.stats.summary(), r.stats.summary()) << "the samples still line up";
}

TEST(L2FailuresInDone, AMalformedRecordIsAProtocolErrorNamingIt) {
  NodeResult r = with_samples();
  stats::L2FailureRecord f = refused();
  f.failed = 7;  // the op counts no longer add up
  r.l2_failures = {f};
  try {
    decode_node_result(encode_node_result(r));
    FAIL() << "decoded";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("l2_failures[0]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fleet::wire
