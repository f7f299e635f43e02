// The DONE message written in one pass is exactly a Done around encode_node_result, and
// decoding views its result in the received buffer instead of copying it.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

NodeResult some_result() {
  NodeResult r;
  r.name = "node-a";
  r.status = "ok";
  for (int i = 0; i < 20000; ++i) r.stats.record(i % 3 ? "finish_write" : "reserve_write", 0.001 * (i % 997), i % 101 == 0);
  r.total = 20000;
  return r;
}

TEST(DoneMessage, IsADoneCarryingTheEncodedNodeResult) {
  const NodeResult r = some_result();
  const auto msg = encode_done_message(r);
  const Envelope env = decode(msg.data(), msg.size());
  EXPECT_EQ(env.version, kProtocolVersion);
  ASSERT_EQ(env.type, "done");
  const Done d = env.as<Done>();
  const std::string_view result(d.result.ptr, d.result.size);
  EXPECT_EQ(result, encode_node_result(r));
  // A view into `msg`, not a copy (the result is megabytes in a real run).
  EXPECT_GE(d.result.ptr, msg.data());
  EXPECT_LE(d.result.ptr + d.result.size, msg.data() + msg.size());
  EXPECT_EQ(decode_node_result(result).stats.summary(), r.stats.summary());
}

TEST(DoneMessage, AnEmptyResultIsStillAWholeMessage) {
  NodeResult r;
  r.name = "idle";
  r.status = "ok";
  const auto msg = encode_done_message(r);
  const Done d = decode(msg.data(), msg.size()).as<Done>();
  EXPECT_EQ(std::string_view(d.result.ptr, d.result.size), encode_node_result(r));
}

}  // namespace
}  // namespace fleet::wire
