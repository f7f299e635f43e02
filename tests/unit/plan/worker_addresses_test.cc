// --workers parsing: host:port, [IPv6]:port, hosts files (comments, blank lines, errors that
// name the line), inline lists and dns:NAME:PORT.
#include "fleet/coordinator/session/worker_addresses.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fleet::session {
namespace {

std::string write_hosts(const std::string& text) {
  auto path = std::filesystem::temp_directory_path() /
              ("fleet-hosts-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
               "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt");
  std::ofstream(path) << text;
  return path.string();
}

TEST(HostPort, ParsesNamesAddressesAndIpv6) {
  auto a = parse_host_port(" node-1.example:5555 ", "x");
  EXPECT_EQ(a.host, "node-1.example");
  EXPECT_EQ(a.port, 5555);
  EXPECT_EQ(a.endpoint(), "tcp://node-1.example:5555");
  auto b = parse_host_port("[::1]:7000", "x");
  EXPECT_EQ(b.host, "[::1]");
  EXPECT_EQ(b.port, 7000);
  EXPECT_EQ(b.name(), "[::1]:7000");
}

// --compression auto sends uncompressed batches exactly to these.
TEST(HostPort, LoopbackHostsAreRecognised) {
  for (const char* h : {"127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "::ffff:127.0.0.1",
                        "[::ffff:127.0.0.2]"})
    EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"10.0.0.1", "128.0.0.1", "node-1.example", "::2", "[fe80::1]",
                        "::ffff:10.0.0.1", "", "localhost.example"})
    EXPECT_FALSE(is_loopback_host(h)) << h;
}

TEST(HostPort, RejectsBadSpellingsNamingWhere) {
  for (const char* bad :
       {"nohost", ":5555", "h:", "h:0", "h:65536", "h:12a", "a b:1", "[::1]5555", "[::1"}) {
    try {
      parse_host_port(bad, "hosts.txt:7");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("hosts.txt:7"), std::string::npos) << e.what();
    }
  }
}

TEST(HostsFile, SkipsCommentsAndBlankLines) {
  auto path = write_hosts("# fleet\n\n10.0.0.1:5555\n  10.0.0.2:5556  # rack 2\n\t\n[::1]:9\r\n");
  auto w = parse_hosts_file(path);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].name(), "10.0.0.1:5555");
  EXPECT_EQ(w[1].name(), "10.0.0.2:5556");
  EXPECT_EQ(w[2].name(), "[::1]:9");
  // resolve_workers recognises a file by its path.
  EXPECT_EQ(resolve_workers(path).size(), 3u);
  std::filesystem::remove(path);
}

TEST(HostsFile, BadLineIsAnErrorWithItsLineNumber) {
  auto path = write_hosts("# header\n10.0.0.1:5555\n\n10.0.0.2\n");
  try {
    parse_hosts_file(path);
    ADD_FAILURE() << "accepted a line without a port";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(HostsFile, EmptyOrMissingFileIsAnError) {
  auto path = write_hosts("# nothing here\n\n");
  EXPECT_THROW(parse_hosts_file(path), std::invalid_argument);
  std::filesystem::remove(path);
  EXPECT_THROW(parse_hosts_file(path), std::invalid_argument);
}

TEST(ResolveWorkers, InlineList) {
  auto w = resolve_workers("a:1, b:2,,c:3");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1].name(), "b:2");
  EXPECT_THROW(resolve_workers("a:1,b"), std::invalid_argument);
  EXPECT_THROW(resolve_workers(","), std::invalid_argument);
}

TEST(ResolveWorkers, DnsNameGivesEveryAddressWithThePort) {
  auto w = resolve_workers("dns:localhost:5555");
  ASSERT_FALSE(w.empty());
  bool v4 = false;
  for (const auto& a : w) {
    EXPECT_EQ(a.port, 5555);
    v4 |= a.host == "127.0.0.1";
  }
  EXPECT_TRUE(v4);
  EXPECT_THROW(resolve_workers("dns:localhost"), std::invalid_argument);
  EXPECT_THROW(resolve_workers("dns:localhost:port"), std::invalid_argument);
  EXPECT_THROW(resolve_workers("dns:no-such-host.invalid:5555"), std::invalid_argument);
}

// Fuzzing (workers_spec_fuzz): a spec that cannot name a file (a component longer than
// NAME_MAX) threw std::filesystem::filesystem_error from the is-it-a-hosts-file check.
TEST(ResolveWorkers, ALongInlineSpecIsAListNotAFilesystemError) {
  const std::string host(300, 'h');
  auto w = resolve_workers(host + ":5555");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].host, host);
  EXPECT_THROW(resolve_workers(std::string(300, 'x')), std::invalid_argument);
}

}  // namespace
}  // namespace fleet::session
