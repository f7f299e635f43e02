// Protected mode's rule, the transports a worker listens on, and the log limiter that bounds what
// peers can make a worker log.
#include <gtest/gtest.h>

#include "fleet/security/protected_mode.h"
#include "fleet/util/log_limiter.h"

namespace fleet {
namespace {

TEST(ProtectedMode, OnlyLoopbackOrIpcWithoutAKeyUnlessInsecure) {
  using security::check_protected_mode;
  EXPECT_TRUE(check_protected_mode("tcp://127.0.0.1:5555", false, false));
  EXPECT_TRUE(check_protected_mode("tcp://[::1]:0", false, false));
  EXPECT_TRUE(check_protected_mode("tcp://localhost:5555", false, false));
  EXPECT_TRUE(check_protected_mode("ipc:///run/fleet.sock", false, false));
  EXPECT_FALSE(check_protected_mode("ipc://@fleet", false, false));  // abstract: no permissions
  Status wild = check_protected_mode("tcp://0.0.0.0:5555", false, false);
  ASSERT_FALSE(wild);
  EXPECT_NE(wild.message().find("--listen tcp://0.0.0.0:5555"), std::string::npos);
  EXPECT_NE(wild.message().find("--curve-cert"), std::string::npos);
  EXPECT_NE(wild.message().find("--insecure"), std::string::npos);
  EXPECT_FALSE(check_protected_mode("tcp://*:5555", false, false));
  EXPECT_FALSE(check_protected_mode("tcp://10.1.2.3:5555", false, false));
  EXPECT_TRUE(check_protected_mode("tcp://0.0.0.0:5555", true, false));
  EXPECT_TRUE(check_protected_mode("tcp://0.0.0.0:5555", false, true));
}

TEST(ListenTransport, TcpAndIpcOnlyEverythingElseRefusedByName) {
  using security::check_listen_transport;
  EXPECT_TRUE(check_listen_transport("tcp://0.0.0.0:5555"));
  EXPECT_TRUE(check_listen_transport("ipc:///run/fleet.sock"));
  for (const char* other :
       {"norm://127.0.0.1:5555", "pgm://eth0;239.1.1.1:5555", "epgm://eth0;239.1.1.1:5555",
        "inproc://w", "udp://127.0.0.1:1", "127.0.0.1:5555", ""}) {
    Status s = check_listen_transport(other);
    ASSERT_FALSE(s) << other;
    EXPECT_NE(s.message().find(std::string("--listen ") + other + ":"), std::string::npos)
        << s.message();
  }
}

TEST(LogLimiter, BurstThenCountsAndReportsAfterTheWindow) {
  util::LogLimiter lim(3, 1000);
  int logged = 0;
  for (int i = 0; i < 10; ++i) logged += lim.allow(10) ? 1 : 0;
  EXPECT_EQ(logged, 3);
  EXPECT_EQ(lim.take_suppressed(500), 0u);  // the window has not ended
  EXPECT_EQ(lim.take_suppressed(1010), 7u);
  EXPECT_EQ(lim.take_suppressed(1020), 0u);
  EXPECT_TRUE(lim.allow(1030));  // a new window
}

}  // namespace
}  // namespace fleet
