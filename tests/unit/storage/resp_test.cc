// resp adapter against a real redis-server that the test starts on a free port and stops.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "fleet/engine/resp_l2_adapter.h"
#include "storage_test_util.h"

extern char** environ;

namespace fleet::storage {
namespace {
using namespace testing;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

std::string FindRedisServer() {
  for (const char* p :
       {"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

class RedisServer {
 public:
  bool start(const std::string& bin, const std::string& password = "") {
    port_ = FreePort();
    std::vector<std::string> args = {bin,          "--port",       std::to_string(port_),
                                     "--bind",     "127.0.0.1",    "--save",
                                     "",           "--appendonly", "no",
                                     "--loglevel", "warning"};
    if (!password.empty()) {
      args.push_back("--requirepass");
      args.push_back(password);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, bin.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return false;
    for (int i = 0; i < 200; ++i) {  // up to ~5 s
      timeval tv{0, 200000};
      redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
      bool up = c && !c->err;
      if (c) redisFree(c);
      if (up) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }
  ~RedisServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

class RespTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = FindRedisServer();
    if (bin_.empty()) GTEST_SKIP() << "redis-server not found on this host: resp tests SKIPPED";
    ASSERT_TRUE(server_.start(bin_)) << "could not start " << bin_;
  }
  EngineConfig Config(int workers = 2) {
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"},
                       {"host", "127.0.0.1"},
                       {"port", server_.port()},
                       {"num_workers", workers}});
    return c;
  }
  std::string bin_;
  RedisServer server_;
};

TEST(RespKeys, LmcacheNaming) {
  trace::ObjectKey k = K(std::string("\x00\x2a", 2), 0x0201, 11, "org/model");
  EXPECT_EQ(resp_key_name(k), "org/model@00000201@b@002a");
  k.cache_salt = "s";
  EXPECT_EQ(resp_key_name(k), "org/model@00000201@b@002a@s");
}

TEST_F(RespTest, StoreLookupLoadVirtualClock) {
  KeyList keys = Keys({"a", "b", "c"});
  {
    util::VirtualClock clock;
    auto opened = Open(Config(), clock);
    StorageManager& sm = *opened;
    Put(sm, keys);
    sm.close(true);
    auto c = fleet::engine::to_json(sm.counters());
    EXPECT_EQ(c["l2_store_succeeded_tasks"], 1);
    EXPECT_EQ(c["l2_store_bytes"], 12000);
  }
  // The value really is in Redis under LMCache's key, with the logical size.
  redisContext* rc = redisConnect("127.0.0.1", server_.port());
  ASSERT_TRUE(rc && !rc->err);
  auto* r = static_cast<redisReply*>(redisCommand(rc, "STRLEN %s", "m@00000000@0@61"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->integer, 4000);
  freeReplyObject(r);
  redisFree(rc);
  // A fresh engine finds and loads them (plus one miss).
  util::VirtualClock clock;
  auto opened = Open(Config(), clock);
  StorageManager& sm = *opened;
  keys.push_back(K("d"));
  sm.submit_prefetch_task(Spec(keys));
  sm.run_until(clock.now_ns());
  const PrefetchResult* res = sm.prefetch_result(0);
  ASSERT_TRUE(res && res->finished);
  EXPECT_EQ(res->loaded, Idx({0, 1, 2}));
  EXPECT_EQ(res->hit_chunks, 3u);
  auto& resp = static_cast<RespL2Adapter&>(sm.adapter(0));
  EXPECT_EQ(resp.lock_count(K("a")), 0);  // lookup locks returned at finish
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_load_bytes"], 12000);
}

TEST_F(RespTest, RealClockWorkerPool) {
  auto opened = Open(Config(4), util::RealClock::instance());
  StorageManager& sm = *opened;
  sm.enable_l2_op_samples(true);
  for (int i = 0; i < 20; ++i) Put(sm, {K("r" + std::to_string(i))});
  sm.close(true);
  auto c = fleet::engine::to_json(sm.counters());
  EXPECT_TRUE(c["drained"].get<bool>());
  // The driver thread batches whatever finished since its last step into one task.
  EXPECT_EQ(c["l2_store_keys_submitted"], 20);
  EXPECT_EQ(c["l2_store_failed_tasks"], 0);
  EXPECT_EQ(c["l2_store_bytes"], 80000);
  auto samples = sm.take_l2_op_samples();
  EXPECT_EQ(samples.size(), c["l2_store_succeeded_tasks"].get<size_t>());
  for (const auto& s : samples) EXPECT_GT(s.latency_ns, 0);
}

TEST_F(RespTest, AuthAndUnreachableServer) {
  RedisServer secured;
  ASSERT_TRUE(secured.start(bin_, "s3cret"));
  {
    util::VirtualClock clock;
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"},
                       {"host", "127.0.0.1"},
                       {"port", secured.port()},
                       {"password", "s3cret"}});
    auto opened = Open(c, clock);
    StorageManager& sm = *opened;
    Put(sm, Keys({"a"}));
    sm.close(true);
    EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_succeeded_tasks"], 1);
  }
  {
    util::VirtualClock clock;
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"}, {"host", "127.0.0.1"}, {"port", secured.port()}});
    // No password for a Redis that requires one: the engine is not built (a config error the
    // worker reports as ABORT kind config), instead of every L2 call failing.
    EXPECT_THAT(
        StorageManager::open(c, clock).status().message(),
        HasSubstr("resp adapter 127.0.0.1:" + std::to_string(secured.port()) +
                  ": Redis requires a password (NOAUTH); give the worker --l2-secret-file"));
  }
  {
    util::VirtualClock clock;  // a wrong password: refused, and never quoted
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"},
                       {"host", "127.0.0.1"},
                       {"port", secured.port()},
                       {"password", "not-it-42"}});
    EXPECT_THAT(StorageManager::open(c, clock).status().message(),
                AllOf(HasSubstr("resp adapter 127.0.0.1:" + std::to_string(secured.port()) +
                                ": Redis refused authentication: WRONGPASS"),
                      Not(HasSubstr("not-it-42"))));
  }
  {
    util::VirtualClock clock;  // a password for a Redis that has none is refused too
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"},
                       {"host", "127.0.0.1"},
                       {"port", server_.port()},
                       {"password", "not-it-42"}});
    EXPECT_THAT(StorageManager::open(c, clock).status().message(),
                AllOf(HasSubstr("Redis refused authentication: ERR"), Not(HasSubstr("not-it-42"))));
  }
  {
    util::VirtualClock clock;
    EngineConfig c = ExampleConfig(1 << 20);
    add_l2_adapter(c, {{"type", "resp"}, {"host", "127.0.0.1"}, {"port", FreePort()}});
    auto opened = Open(c, clock);
    StorageManager& sm = *opened;
    Put(sm, Keys({"a"}));
    sm.close(true);
    EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_store_failed_tasks"], 1);
  }
}

}  // namespace
}  // namespace fleet::storage

namespace fleet::storage {
namespace {
using namespace testing;

// A bounded resp adapter with an `eviction` block: the L2 controller deletes LRU keys from the
// real Redis once used/capacity reaches the watermark (docs/era3-reference.md §3.5).
TEST_F(RespTest, L2EvictionDeletesFromRedis) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(1 << 20);
  add_l2_adapter(cfg, {{"type", "resp"},
                       {"host", "127.0.0.1"},
                       {"port", server_.port()},
                       {"num_workers", 1},
                       {"max_capacity_gb", 20000.0 / (1 << 30)},  // exactly 20000 bytes
                       {"eviction", {{"eviction_ratio", 0.5}}}});
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "B", "C", "D"}));  // 4 x 4000 bytes = 0.8 of capacity
  sm.run_until(clock.now_ns());
  EXPECT_DOUBLE_EQ(sm.adapter(0).usage().usage_fraction(), 0.8);
  // Storing A again (SET overwrites) must not count its bytes twice.
  sm.adapter(0).submit_store(Keys({"A"}), {4000});
  sm.run_until(clock.now_ns());
  EXPECT_DOUBLE_EQ(sm.adapter(0).usage().usage_fraction(), 0.8);
  Advance(sm, clock, 1'000'000'000);  // tick: int(4 * 0.5) = 2 victims. A's restore made it
                                      // most recent: LRU order was D, C, B, A
  redisContext* rc = redisConnect("127.0.0.1", server_.port());
  ASSERT_TRUE(rc && !rc->err);
  auto exists = [&](const char* name) {
    auto* r = static_cast<redisReply*>(redisCommand(rc, "EXISTS m@00000000@0@%s", name));
    long long v = r ? r->integer : -1;
    if (r) freeReplyObject(r);
    return v;
  };
  EXPECT_EQ(exists("44"), 0);  // "D" = 0x44
  EXPECT_EQ(exists("43"), 0);  // "C"
  EXPECT_EQ(exists("42"), 1);  // "B"
  EXPECT_EQ(exists("41"), 1);  // "A"
  redisFree(rc);
  EXPECT_DOUBLE_EQ(sm.adapter(0).usage().usage_fraction(), 0.4);
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l2_adapters"][0]["evicted_keys"], 2);
}

}  // namespace
}  // namespace fleet::storage
