// --workers parsing: host:port, [IPv6]:port, hosts files (comments, blank lines, errors that
// name the line), inline lists and dns:NAME:PORT.
#include "fleet/coordinator/session/worker_addresses.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "scratch_dir.h"

namespace fleet::session {
namespace {

std::string write_hosts(const std::string& text) {
  const std::string path = fleet::test::test_scratch_dir() / "hosts.txt";
  std::ofstream(path) << text;
  return path;
}

// The error a spelling gets, "" when it is accepted.
template <class T>
std::string error_of(const Result<T>& r) {
  return r ? "" : r.status().message();
}

TEST(HostPort, ParsesNamesAddressesAndIpv6) {
  auto a = parse_host_port(" node-1.example:5555 ", "x").value();
  EXPECT_EQ(a.host, "node-1.example");
  EXPECT_EQ(a.port, 5555);
  EXPECT_EQ(a.endpoint(), "tcp://node-1.example:5555");
  auto b = parse_host_port("[::1]:7000", "x").value();
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
    const std::string why = error_of(parse_host_port(bad, "hosts.txt:7"));
    EXPECT_EQ(why.rfind("hosts.txt:7: ", 0), 0u) << bad << ": " << why;
  }
  EXPECT_EQ(error_of(parse_host_port("h:0", "x")), "x: port 0 out of range");
  EXPECT_EQ(error_of(parse_host_port("h:12a", "x")), "x: port \"12a\" is not a number");
  EXPECT_EQ(error_of(parse_host_port("nohost", "x")), "x: \"nohost\" is not host:port");
  EXPECT_EQ(error_of(parse_host_port("[::1]5555", "x")), "x: \"[::1]5555\" is not [IPv6]:port");
  EXPECT_EQ(error_of(parse_host_port("a b:1", "x")), "x: \"a b\" is not a host name");
}

TEST(HostsFile, SkipsCommentsAndBlankLines) {
  auto path = write_hosts("# fleet\n\n10.0.0.1:5555\n  10.0.0.2:5556  # rack 2\n\t\n[::1]:9\r\n");
  auto w = parse_hosts_file(path).value();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].name(), "10.0.0.1:5555");
  EXPECT_EQ(w[1].name(), "10.0.0.2:5556");
  EXPECT_EQ(w[2].name(), "[::1]:9");
  // resolve_workers recognises a file by its path.
  EXPECT_EQ(resolve_workers(path)->size(), 3u);
  std::filesystem::remove(path);
}

TEST(HostsFile, BadLineIsAnErrorWithItsLineNumber) {
  auto path = write_hosts("# header\n10.0.0.1:5555\n\n10.0.0.2\n");
  EXPECT_EQ(error_of(parse_hosts_file(path)), path + ":4: \"10.0.0.2\" is not host:port");
  std::filesystem::remove(path);
}

TEST(HostsFile, EmptyOrMissingFileIsAnError) {
  auto path = write_hosts("# nothing here\n\n");
  EXPECT_EQ(error_of(parse_hosts_file(path)), "--workers " + path + ": no workers listed");
  std::filesystem::remove(path);
  EXPECT_EQ(error_of(parse_hosts_file(path)), "--workers " + path + ": cannot open hosts file");
}

TEST(ResolveWorkers, InlineList) {
  auto w = resolve_workers("a:1, b:2,,c:3").value();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1].name(), "b:2");
  EXPECT_EQ(error_of(resolve_workers("a:1,b")), "--workers: \"b\" is not host:port");
  EXPECT_EQ(error_of(resolve_workers(",")),
            "--workers \",\": no workers (not a file, list or dns:NAME:PORT)");
}

TEST(ResolveWorkers, DnsNameGivesEveryAddressWithThePort) {
  auto w = resolve_workers("dns:localhost:5555").value();
  ASSERT_FALSE(w.empty());
  bool v4 = false;
  for (const auto& a : w) {
    EXPECT_EQ(a.port, 5555);
    v4 |= a.host == "127.0.0.1";
  }
  EXPECT_TRUE(v4);
  EXPECT_EQ(error_of(resolve_workers("dns:localhost")),
            "--workers dns:localhost: expected dns:NAME:PORT");
  EXPECT_EQ(error_of(resolve_workers("dns:localhost:port")),
            "--workers dns:localhost:port: port \"port\" is not a number");
  EXPECT_EQ(
      error_of(resolve_workers("dns:no-such-host.invalid:5555"))
          .rfind("--workers dns:no-such-host.invalid:5555: cannot resolve no-such-host.invalid: ",
                 0),
      0u);
}

// Fuzzing (workers_spec_fuzz): a spec that cannot name a file (a component longer than
// NAME_MAX) threw std::filesystem::filesystem_error from the is-it-a-hosts-file check.
TEST(ResolveWorkers, ALongInlineSpecIsAListNotAFilesystemError) {
  const std::string host(300, 'h');
  auto w = resolve_workers(host + ":5555").value();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].host, host);
  EXPECT_FALSE(resolve_workers(std::string(300, 'x')).ok());
}

}  // namespace
}  // namespace fleet::session
