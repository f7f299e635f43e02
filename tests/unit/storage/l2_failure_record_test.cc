// The engine's per-adapter L2 failure records: every failed L2 operation counted on its adapter
// with its kind, time and the adapter's reason, and told to the listener as it happens.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "scratch_dir.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;

constexpr int64_t kSecond = 1'000'000'000;

// A loopback port nobody listens on (bound, then released).
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(L2FailureRecords, AnUnreachableRedisFailsEveryOpWithTheConnectError) {
  const int port = ClosedPort();
  util::VirtualClock clock;
  clock.advance_by(5 * kSecond);
  EngineConfig c = ExampleConfig(1 << 20);
  add_l2_adapter(c, MockJson(1.0, 1.0));  // adapter 0 works
  add_l2_adapter(c, {{"type", "resp"}, {"host", "127.0.0.1"}, {"port", port}});
  auto opened = Open(c, clock);
  StorageManager& sm = *opened;
  std::vector<uint64_t> told;
  sm.set_l2_failure_listener([&](const stats::L2FailureRecord& r) { told.push_back(r.failed); });
  Put(sm, Keys({"a"}));
  Advance(sm, clock, kSecond);
  Put(sm, Keys({"b"}));
  sm.close(true);

  const std::vector<stats::L2FailureRecord> f = sm.l2_failures();
  ASSERT_EQ(f.size(), 1u) << "the mock did not fail";
  EXPECT_EQ(f[0].adapter, 1);
  EXPECT_EQ(f[0].type, "resp");
  const auto counters = fleet::engine::to_json(sm.counters());
  EXPECT_EQ(f[0].failed, counters["l2_adapters"][1]["store_failed_tasks"].get<uint64_t>());
  EXPECT_EQ(f[0].failed, 2u);
  EXPECT_EQ(f[0].by_op[0], 2u) << "both stores";
  EXPECT_EQ(f[0].first_ns, 5 * kSecond);
  EXPECT_EQ(f[0].last_ns, 6 * kSecond);
  EXPECT_EQ(f[0].first_error, "connect 127.0.0.1:" + std::to_string(port) + ": Connection refused");
  EXPECT_EQ(told, (std::vector<uint64_t>{1, 2})) << "the listener hears each failure at once";
}

TEST(L2FailureRecords, AnFsStoreThatCannotBeWrittenSaysWhy) {
  const test::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  util::VirtualClock clock;
  EngineConfig c = ExampleConfig(1 << 20);
  add_l2_adapter(c, {{"type", "fs"}, {"base_path", dir.string()}});
  auto opened = Open(c, clock);
  StorageManager& sm = *opened;
  Put(sm, {K("x", 0, 0, std::string(300, 'm'))});  // no file name fits 255 bytes
  sm.close(true);
  const auto f = sm.l2_failures();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].type, "fs");
  EXPECT_EQ(f[0].failed, 1u);
  EXPECT_EQ(f[0].first_error, "a key has no file name (longer than 255 bytes, or a '/' in it)");
}

TEST(L2FailureRecords, NoFailureNoRecord) {
  Example85 e;
  e.sm->close(true);
  EXPECT_TRUE(e.sm->l2_failures().empty());
}

}  // namespace
}  // namespace fleet::storage
