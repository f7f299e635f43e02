// The DONE message written in one pass is a Done around a node result equal to
// encode_node_result's (its "pad" differs: it aligns the samples within the message), and
// decoding views its result in the received buffer instead of copying it.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
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
  for (int i = 0; i < 20000; ++i)
    r.stats.record(i % 3 ? "finish_write" : "reserve_write", 0.001 * (i % 997), i % 101 == 0);
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
  // A view into `msg`, not a copy (the result is megabytes in a real run).
  EXPECT_GE(d.result.ptr, msg.data());
  EXPECT_LE(d.result.ptr + d.result.size, msg.data() + msg.size());
  const NodeResult back = decode_node_result(result);
  const NodeResult standalone = decode_node_result(encode_node_result(r));
  EXPECT_EQ(back.stats.summary(), r.stats.summary());
  EXPECT_EQ(standalone.stats.summary(), r.stats.summary());
  EXPECT_EQ(back.name, r.name);
  EXPECT_EQ(back.total, r.total);
  // The samples (the result's tail) start 8-byte aligned within the message, and sorted.
  uint64_t samples = 0;
  for (const auto& [q, s] : r.stats.ops()) samples += s.count();
  const char* first = d.result.ptr + d.result.size - samples * sizeof(double);
  EXPECT_EQ((first - msg.data()) % 8, 0);
  const auto* values = reinterpret_cast<const double*>(first);
  const size_t n_finish = r.stats.ops().at("finish_write").count();
  EXPECT_TRUE(std::is_sorted(values, values + n_finish));
  EXPECT_TRUE(std::is_sorted(values + n_finish, values + samples));
}

// Decoded with an owner, aligned sorted samples stay in the message: the stats share it.
TEST(DoneMessage, DecodedWithAnOwnerTheSamplesStayInTheMessage) {
  const NodeResult r = some_result();
  auto msg = std::make_shared<util::HugeString>(encode_done_message(r));
  const Done d = decode(msg->data(), msg->size()).as<Done>();
  const NodeResult back = decode_node_result({d.result.ptr, d.result.size}, msg);
  EXPECT_GT(msg.use_count(), 1) << "the samples were copied";
  EXPECT_EQ(back.stats.summary(), r.stats.summary());
  std::weak_ptr<util::HugeString> alive = msg;
  msg.reset();
  EXPECT_FALSE(alive.expired()) << "the stats keep the message alive";
  EXPECT_EQ(back.stats.ops().at("reserve_write").count(),
            r.stats.ops().at("reserve_write").count());
}

TEST(DoneMessage, AnEmptyResultIsStillAWholeMessage) {
  NodeResult r;
  r.name = "idle";
  r.status = "ok";
  const auto msg = encode_done_message(r);
  const Done d = decode(msg.data(), msg.size()).as<Done>();
  const NodeResult back = decode_node_result({d.result.ptr, d.result.size});
  EXPECT_EQ(back.name, "idle");
  EXPECT_TRUE(back.stats.empty());
}

// Fuzzing (node_result_fuzz): nlohmann's msgpack reader recursed once per nesting level, so a
// result whose map nested ~50 000 arrays overflowed the coordinator's stack.
TEST(DoneMessage, ADeeplyNestedResultIsAProtocolError) {
  std::string meta(200000, '\x91');  // [[[[...nil...]]]]
  meta += '\xc0';
  std::string bytes(4, '\0');
  bytes[1] = static_cast<char>((meta.size() >> 16) & 0xff);
  bytes[2] = static_cast<char>((meta.size() >> 8) & 0xff);
  bytes[3] = static_cast<char>(meta.size() & 0xff);
  bytes += meta;
  EXPECT_THROW(decode_node_result(bytes), ProtocolError);
}

}  // namespace
}  // namespace fleet::wire
