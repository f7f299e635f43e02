// The worker's host policy against real files: a fresh directory per test (ScratchDir) with the
// roots, symlinks, FIFOs and sockets each case needs. Every refusal is checked for what it names.
#include "fleet/worker/host_policy.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "fleet/engine/engine_config_json.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/shared_trace.h"
#include "scratch_dir.h"

namespace fleet::policy {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kRespEnv[] = {"LMCACHE_RESP_HOST", "LMCACHE_RESP_PORT",
                                    "LMCACHE_RESP_USERNAME", "LMCACHE_RESP_PASSWORD"};

class HostPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::canonical(scratch_.path()).string();
    root_ = dir_ + "/fleet";
    fs::create_directory(root_);
    // The adapter reads these: a test starts without them and leaves them as it found them.
    for (const char* name : kRespEnv) {
      if (const char* v = std::getenv(name)) saved_env_[name] = v;
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (const char* name : kRespEnv) ::unsetenv(name);
    for (const auto& [name, value] : saved_env_) ::setenv(name.c_str(), value.c_str(), 1);
  }

  HostPolicy Make(HostPolicyOptions o) {
    Result<HostPolicy> p = HostPolicy::make(o);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? p.value() : HostPolicy();
  }
  HostPolicy FsPolicy() {
    HostPolicyOptions o;
    o.fs_root = root_;
    return Make(o);
  }
  static storage::EngineConfig With(std::initializer_list<nlohmann::json> adapters) {
    storage::EngineConfig c;
    c.l1_size_in_bytes = 1 << 20;
    for (const auto& a : adapters) storage::add_l2_adapter(c, a);
    return c;
  }
  static nlohmann::json Fs(const std::string& base) {
    return {{"type", "fs"}, {"base_path", base}};
  }
  static nlohmann::json Resp(const std::string& host, int port) {
    return {{"type", "resp"}, {"host", host}, {"port", port}};
  }
  static nlohmann::json Mock(double gb) {
    return {{"type", "mock"}, {"max_size_gb", gb}, {"mock_bandwidth_gb", 10.0}};
  }
  // Every path under `d`, recursively: what a check must leave unchanged.
  static std::vector<std::string> Listing(const std::string& d) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(d)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  test::ScratchDir scratch_;
  std::string dir_, root_;
  std::map<std::string, std::string> saved_env_;
};

// --- fs adapters ---

TEST_F(HostPolicyTest, FsInsideRootAllowed) {
  const HostPolicy p = FsPolicy();
  EXPECT_TRUE(p.check_run_config(With({Fs(root_)})).ok());
  EXPECT_TRUE(p.check_run_config(With({Fs(root_ + "/a/b/c")})).ok());  // not there yet
  EXPECT_TRUE(p.check_run_config(With({Fs(root_ + "//a/./b/")})).ok());
  // Relative: refused, since the adapter would resolve it against the working directory.
  const Status rel = p.check_run_config(With({Fs("run1/l2")}));
  ASSERT_FALSE(rel.ok());
  EXPECT_THAT(rel.message(), HasSubstr("\"run1/l2\" is not an absolute path"));
}

TEST_F(HostPolicyTest, FsDotDotRefused) {
  const HostPolicy p = FsPolicy();
  for (const std::string& base : {root_ + "/a/../b", std::string("../x"), root_ + "/.."}) {
    const Status s = p.check_run_config(With({Fs(base)}));
    ASSERT_FALSE(s.ok()) << base;
    EXPECT_THAT(s.message(), HasSubstr("policy: l2_adapters[0] (fs) base_path \"" + base + "\""));
    EXPECT_THAT(s.message(), HasSubstr("must not contain \"..\""));
    EXPECT_EQ(s.code(), ExitCode::kBadInput);
  }
}

TEST_F(HostPolicyTest, FsOutsideRootRefused) {
  const HostPolicy p = FsPolicy();
  const Status s = p.check_run_config(With({Fs(root_), Fs("/etc/x")}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[1] (fs) base_path \"/etc/x\" is outside --fs-root " + root_);
}

TEST_F(HostPolicyTest, FsSiblingWithSameNamePrefixRefused) {
  fs::create_directory(root_ + "2");  // /tmp/x/fleet2 starts with /tmp/x/fleet
  const HostPolicy p = FsPolicy();
  for (const std::string& base : {root_ + "2", root_ + "2/sub", root_ + "2-new"}) {
    const Status s = p.check_run_config(With({Fs(base)}));
    ASSERT_FALSE(s.ok()) << base;
    EXPECT_THAT(s.message(), HasSubstr("\"" + base + "\" is outside --fs-root " + root_));
  }
}

TEST_F(HostPolicyTest, FsSymlinkEscapingRootRefused) {
  fs::create_directory(dir_ + "/elsewhere");
  fs::create_directory_symlink(dir_ + "/elsewhere", root_ + "/link");
  const HostPolicy p = FsPolicy();
  for (const std::string& base : {root_ + "/link", root_ + "/link/new/dir", root_ + "/./link/x"}) {
    const Status s = p.check_run_config(With({Fs(base)}));
    ASSERT_FALSE(s.ok()) << base;
    EXPECT_THAT(s.message(), HasSubstr("is outside --fs-root " + root_));
    EXPECT_THAT(s.message(), HasSubstr(root_ + "/link resolves to " + dir_ + "/elsewhere"));
  }
}

TEST_F(HostPolicyTest, FsDanglingSymlinkRefused) {
  fs::create_directory_symlink(dir_ + "/not-yet", root_ + "/dangling");
  const Status s = FsPolicy().check_run_config(With({Fs(root_ + "/dangling/x")}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(root_ + "/dangling cannot be resolved"));
}

TEST_F(HostPolicyTest, FsSymlinkInsideRootAllowed) {
  fs::create_directories(root_ + "/real/l2");
  fs::create_directory_symlink(root_ + "/real", root_ + "/alias");
  const HostPolicy p = FsPolicy();
  EXPECT_TRUE(p.check_run_config(With({Fs(root_ + "/alias/l2")})).ok());
  EXPECT_TRUE(p.check_run_config(With({Fs(root_ + "/alias/new")})).ok());
}

TEST_F(HostPolicyTest, FsWithoutRootRefusedWithHint) {
  const Status s = HostPolicy().check_run_config(With({Mock(1), Fs("/tmp/l2")}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[1] (fs): a run may not introduce an fs adapter on this worker "
            "(start it with --fs-root DIR)");
}

TEST_F(HostPolicyTest, FsCheckCreatesNothing) {
  fs::create_directory(root_ + "/existing");
  const std::vector<std::string> before = Listing(dir_);
  const HostPolicy p = FsPolicy();
  nlohmann::json spec = Fs(root_ + "/existing/a/b");
  spec["relative_tmp_dir"] = "tmp/t";
  EXPECT_FALSE(p.check_run_config(With({spec, Fs(root_ + "/rel/x"), Fs("/etc/never")})).ok());
  EXPECT_TRUE(p.check_run_config(With({spec, Fs(root_ + "/rel/x")})).ok());
  EXPECT_EQ(Listing(dir_), before);
}

TEST_F(HostPolicyTest, FaultInjectInnerFsChecked) {
  const HostPolicy p = FsPolicy();
  const nlohmann::json ok = {{"type", "fault_inject"}, {"inner", Fs(root_ + "/l2")}};
  EXPECT_TRUE(p.check_run_config(With({ok})).ok());
  const nlohmann::json nested = {{"type", "fault_inject"},
                                 {"inner", {{"type", "fault_inject"}, {"inner", Fs("/etc/x")}}}};
  const Status s = p.check_run_config(With({Mock(1), nested}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[1].inner.inner (fs) base_path \"/etc/x\" is outside "
            "--fs-root " +
                root_);
  nlohmann::json deep = Fs(root_);
  for (int i = 0; i < 10; ++i) deep = {{"type", "fault_inject"}, {"inner", deep}};
  const Status d = p.check_run_config(With({deep}));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.message(), HasSubstr("nested deeper than 8"));
}

TEST_F(HostPolicyTest, FsRelativeTmpDir) {
  const HostPolicy p = FsPolicy();
  nlohmann::json spec = Fs(root_ + "/l2");
  spec["relative_tmp_dir"] = "tmp";
  EXPECT_TRUE(p.check_run_config(With({spec})).ok());
  spec["relative_tmp_dir"] = "../../outside";
  Status s = p.check_run_config(With({spec}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[0] (fs) relative_tmp_dir \"../../outside\" must not "
            "contain \"..\"");
  spec["relative_tmp_dir"] = "/tmp/abs";
  s = p.check_run_config(With({spec}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("relative_tmp_dir \"/tmp/abs\" must be relative"));
  // A tmp dir through a symlink that leaves the root.
  fs::create_directories(root_ + "/l2");
  fs::create_directory_symlink(dir_, root_ + "/l2/up");
  spec["relative_tmp_dir"] = "up/t";
  s = p.check_run_config(With({spec}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("(fs) base_path/relative_tmp_dir \"" + root_ + "/l2/up/t\""));
  EXPECT_THAT(s.message(), HasSubstr("is outside --fs-root"));
}

TEST_F(HostPolicyTest, FsMalformedSpecNamesIndex) {
  const Status s = FsPolicy().check_run_config(With({nlohmann::json{{"type", "fs"}}}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("policy: l2_adapters[0] (fs): fs adapter"));
  EXPECT_THAT(s.message(), HasSubstr("base_path"));
  storage::EngineConfig c;
  c.l2_adapters = {"{\"type\": \"mock\", \"max_size_gb\": 1, \"mock_bandwidth_gb\": 1}", "{nope"};
  const Status j = FsPolicy().check_run_config(c);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.message(), HasSubstr("policy: l2_adapters[1]: not valid JSON"));
}

TEST_F(HostPolicyTest, UnknownAdapterTypeRefused) {
  const Status s =
      FsPolicy().check_run_config(With({nlohmann::json{{"type", "s3"}, {"bucket", "b"}}}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("policy: l2_adapters[0]: unknown adapter type \"s3\""));
}

// --- resp adapters ---

TEST_F(HostPolicyTest, RespAllowedAndRefused) {
  HostPolicyOptions o;
  o.allow_l2 = {"redis:6379", "10.0.0.1:6380,[::1]:7000"};
  const HostPolicy p = Make(o);
  EXPECT_TRUE(p.check_run_config(With({Resp("redis", 6379)})).ok());
  EXPECT_TRUE(p.check_run_config(With({Resp("REDIS", 6379)})).ok());  // host: any case
  EXPECT_TRUE(p.check_run_config(With({Resp("10.0.0.1", 6380), Resp("::1", 7000)})).ok());
  const Status s = p.check_run_config(With({Resp("redis", 6379), Resp("10.0.0.9", 6379)}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[1] (resp) 10.0.0.9:6379 is not in --allow-l2 (allowed: "
            "redis:6379, 10.0.0.1:6380, [::1]:7000)");
  const Status port = p.check_run_config(With({Resp("redis", 6380)}));
  ASSERT_FALSE(port.ok());
  EXPECT_THAT(port.message(), HasSubstr("redis:6380 is not in --allow-l2"));
  const Status none = HostPolicy().check_run_config(With({Resp("redis", 6379)}));
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.message(), HasSubstr("redis:6379 is not in --allow-l2 (allowed: none)"));
  HostPolicyOptions any;
  any.allow_l2 = {"*"};
  EXPECT_TRUE(Make(any).check_run_config(With({Resp("10.9.9.9", 1234)})).ok());
}

TEST_F(HostPolicyTest, RespCredentialsFromRunRefused) {
  HostPolicyOptions o;
  o.allow_l2 = {"redis:6379"};
  const HostPolicy p = Make(o);
  nlohmann::json spec = Resp("redis", 6379);
  spec["password"] = "hunter2";
  Status s = p.check_run_config(With({spec}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: l2_adapters[0] (resp) carries a password: L2 credentials come from the "
            "worker (--l2-secret-file), never from a run");
  EXPECT_THAT(s.message(), Not(HasSubstr("hunter2")));
  spec["password"] = "";  // LMCache's default, spelled out: carries nothing
  spec["username"] = nullptr;
  EXPECT_TRUE(p.check_run_config(With({spec})).ok());
  spec.erase("password");
  spec["username"] = "alice";
  s = p.check_run_config(With({spec}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("(resp) carries a username"));
}

TEST_F(HostPolicyTest, RespEnvironmentOverrideIsWhatIsChecked) {
  HostPolicyOptions o;
  o.allow_l2 = {"redis:6379"};
  const HostPolicy p = Make(o);
  // The run names an allowed endpoint but the worker's environment sends the adapter elsewhere.
  ::setenv("LMCACHE_RESP_HOST", "10.9.9.9", 1);
  Status s = p.check_run_config(With({Resp("redis", 6379)}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("(resp) 10.9.9.9:6379 is not in --allow-l2"));
  EXPECT_THAT(s.message(), HasSubstr("LMCACHE_RESP_HOST"));
  // And the other way: the environment's endpoint is the allowed one.
  ::setenv("LMCACHE_RESP_HOST", "redis", 1);
  ::setenv("LMCACHE_RESP_PORT", "6379", 1);
  EXPECT_TRUE(p.check_run_config(With({Resp("elsewhere", 1234)})).ok());
  ::unsetenv("LMCACHE_RESP_HOST");
  ::unsetenv("LMCACHE_RESP_PORT");
  s = p.check_run_config(With({Resp("elsewhere", 1234)}));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), Not(HasSubstr("LMCACHE_RESP_HOST")));
}

// --- memory ---

TEST_F(HostPolicyTest, InMemoryTiersAgainstLimit) {
  HostPolicyOptions o;
  o.max_l1_gb = 80;
  const HostPolicy p = Make(o);
  storage::EngineConfig c = With({Mock(32)});
  c.l1_size_in_bytes = 64ull << 30;
  const Status s = p.check_run_config(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "policy: the run asks for 96 GB of in-memory tiers (L1 64 GB + mock L2 32 GB), above "
            "--max-l1-gb 80");
  // A mock inside a fault_inject counts too.
  c = With({Mock(8), {{"type", "fault_inject"}, {"inner", Mock(9)}}});
  c.l1_size_in_bytes = 64ull << 30;
  const Status f = p.check_run_config(c);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("81 GB of in-memory tiers (L1 64 GB + mock L2 17 GB)"));
  c = With({Mock(16)});
  c.l1_size_in_bytes = 64ull << 30;
  EXPECT_TRUE(p.check_run_config(c).ok());  // exactly the limit
  // A sum that would wrap in 64-bit integers (an L1 of 2^64 - 1 GiB plus 2 GiB) still refused.
  c = With({Mock(2)});
  c.l1_size_in_bytes = ~0ull - (1ull << 30) + 1;
  EXPECT_FALSE(p.check_run_config(c).ok());
  storage::EngineConfig big;
  big.l1_size_in_bytes = 81ull << 30;
  const Status only_l1 = p.check_run_config(big);
  ASSERT_FALSE(only_l1.ok());
  EXPECT_THAT(only_l1.message(), HasSubstr("81 GB of in-memory tiers (L1 81 GB), above"));
  c = With({Mock(1000)});
  c.l1_size_in_bytes = 512ull << 30;
  EXPECT_TRUE(HostPolicy().check_run_config(c).ok());  // no --max-l1-gb: no limit
}

// --- make() and describe() ---

TEST_F(HostPolicyTest, MakeChecksOptions) {
  HostPolicyOptions o;
  o.fs_root = dir_ + "/missing";
  Result<HostPolicy> r = HostPolicy::make(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("--fs-root " + dir_ + "/missing: No such file"));
  ::close(::open((dir_ + "/file").c_str(), O_CREAT | O_WRONLY, 0600));
  o.fs_root = "";
  o.trace_root = dir_ + "/file";
  r = HostPolicy::make(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--trace-root " + dir_ + "/file: not a directory");
  for (const std::string bad : {"redis", "redis:", ":6379", "redis:0", "redis:65536", "redis:63x9",
                                "::1:6379", "[::1]6379", "a:1,,b:2", ""}) {
    HostPolicyOptions e;
    e.allow_l2 = {bad};
    r = HostPolicy::make(e);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("--allow-l2 \""));
    EXPECT_THAT(r.status().message(), HasSubstr("expected HOST:PORT"));
  }
  HostPolicyOptions m;
  m.max_l1_gb = -1;
  r = HostPolicy::make(m);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("--max-l1-gb -1: must be a number >= 0"));
}

TEST_F(HostPolicyTest, MakeResolvesRootsAndDescribes) {
  fs::create_directory_symlink(root_, dir_ + "/root-link");
  HostPolicyOptions o;
  o.fs_root = dir_ + "/root-link/";
  o.trace_root = dir_;
  o.allow_l2 = {" redis:6379 , [::1]:7000", "Cache:1"};
  o.max_l1_gb = 80.5;
  const HostPolicy p = Make(o);
  EXPECT_EQ(p.options().fs_root, root_);
  EXPECT_EQ(p.options().allow_l2,
            (std::vector<std::string>{"redis:6379", "[::1]:7000", "cache:1"}));
  EXPECT_EQ(p.describe(), "fs-root " + root_ + ", allow-l2 redis:6379,[::1]:7000,cache:1, " +
                              "trace-root " + dir_ + ", max-l1-gb 80.5");
  EXPECT_EQ(HostPolicy().describe(), "fs-root -, allow-l2 -, trace-root -, max-l1-gb -");
}

// --- shared traces ---

class TracePathTest : public HostPolicyTest {
 protected:
  HostPolicy TracePolicy() {
    HostPolicyOptions o;
    o.trace_root = root_;
    return Make(o);
  }
  void Touch(const std::string& path) { ::close(::open(path.c_str(), O_CREAT | O_WRONLY, 0600)); }
};

TEST_F(TracePathTest, InsideRootReturnsRealPath) {
  fs::create_directory(root_ + "/traces");
  Touch(root_ + "/traces/a.lct");
  fs::create_symlink(root_ + "/traces/a.lct", root_ + "/latest.lct");
  const HostPolicy p = TracePolicy();
  Result<std::string> r = p.check_trace_path(root_ + "/traces/a.lct");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value(), root_ + "/traces/a.lct");
  r = p.check_trace_path(root_ + "/latest.lct");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value(), root_ + "/traces/a.lct");
  r = p.check_trace_path(root_ + "/traces/../traces/./a.lct");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r.value(), root_ + "/traces/a.lct");
}

TEST_F(TracePathTest, OutsideRootRefused) {
  Touch(dir_ + "/other.lct");
  Touch(root_ + "2.lct");  // a sibling whose name starts with the root's
  const HostPolicy p = TracePolicy();
  for (const std::string& path : {dir_ + "/other.lct", root_ + "2.lct"}) {
    Result<std::string> r = p.check_trace_path(path);
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.status().message(),
              "policy: shared trace \"" + path + "\" is outside --trace-root " + root_);
  }
  Result<std::string> up = p.check_trace_path(root_ + "/../other.lct");
  ASSERT_FALSE(up.ok());
  EXPECT_THAT(up.status().message(), HasSubstr("is outside --trace-root " + root_ +
                                               " (it resolves to " + dir_ + "/other.lct)"));
}

TEST_F(TracePathTest, SymlinkEscapingRootRefused) {
  Touch(dir_ + "/secret");
  fs::create_symlink(dir_ + "/secret", root_ + "/trace.lct");
  Result<std::string> r = TracePolicy().check_trace_path(root_ + "/trace.lct");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("\"" + root_ + "/trace.lct\" is outside --trace-root " + root_ +
                        " (it resolves to " + dir_ + "/secret)"));
}

TEST_F(TracePathTest, FifoRefusedWithoutBlocking) {
  const std::string fifo = root_ + "/trace.lct";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<std::string> r = TracePolicy().check_trace_path(fifo);  // no writer: an open would block
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "policy: shared trace \"" + fifo + "\" is not a regular file (FIFO)");
  // The trace library refuses it too, from the open descriptor, without waiting for a writer.
  try {
    trace::identify_trace(fifo);
    FAIL() << "a FIFO was read as a trace";
  } catch (const trace::TraceError& e) {  // expected: not a regular file
    EXPECT_EQ(std::string(e.what()), fifo + ": not a regular file (FIFO)");
  }
}

TEST_F(TracePathTest, DevicesDirectoriesAndSocketsRefused) {
  HostPolicyOptions dev;
  dev.trace_root = "/dev";
  Result<std::string> r = Make(dev).check_trace_path("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "policy: shared trace \"/dev/zero\" is not a regular file (character device)");
  r = TracePolicy().check_trace_path("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is outside --trace-root"));

  fs::create_directory(root_ + "/dir.lct");
  r = TracePolicy().check_trace_path(root_ + "/dir.lct");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is not a regular file (directory)"));
  r = TracePolicy().check_trace_path(root_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is not a regular file (directory)"));

  const std::string sock = root_ + "/s.lct";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  r = TracePolicy().check_trace_path(sock);
  ::close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("is not a regular file (socket)"));
}

TEST_F(TracePathTest, MissingRelativeAndNoRootRefused) {
  const HostPolicy p = TracePolicy();
  Result<std::string> r = p.check_trace_path(root_ + "/none.lct");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "policy: shared trace \"" + root_ + "/none.lct\" does not exist");
  r = p.check_trace_path("fleet/a.lct");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "policy: shared trace \"fleet/a.lct\" is not an absolute path");
  r = p.check_trace_path(root_ + std::string("/a\0b", 4));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("contains a NUL byte"));
  Touch(root_ + "/a.lct");
  r = HostPolicy().check_trace_path(root_ + "/a.lct");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "policy: shared trace \"" + root_ +
                                      "/a.lct\": this worker does not read shared traces (start "
                                      "it with --trace-root DIR)");
}

}  // namespace
}  // namespace fleet::policy
