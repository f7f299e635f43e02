// Workers' CURVE keys on the coordinator: `key=` on hosts-file lines (Z85 may contain '#' and
// ':'), --known-workers with a `*` default, and the rule that every worker has a key exactly
// when the coordinator has one.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "fleet/coordinator/session/known_workers.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "scratch_dir.h"

namespace fleet::session {
namespace {

struct Files {
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
  test::ScratchDir dir;
};

// A key holding '#' and ':' (both in Z85's alphabet), found by trying.
std::string key_with_hash_and_colon() {
  for (int i = 0; i < 100000; ++i) {
    std::string k = security::generate_key_pair().public_z85;
    if (k.find('#') != std::string::npos && k.find(':') != std::string::npos) return k;
  }
  return "";
}

TEST(WorkerKeys, HostsFileLinesCarryKeysEvenWithHashAndColon) {
  Files f;
  const std::string k = key_with_hash_and_colon();
  ASSERT_FALSE(k.empty());
  const std::string plain = security::generate_key_pair().public_z85;
  auto path = f.write("hosts.txt", "# fleet\ngpu1:5555 key=" + k + "   # rack 3\n[::1]:6000\n" +
                                       "gpu2:5555\tkey=" + plain + "\n");
  auto a = parse_hosts_file(path).value();
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].name(), "gpu1:5555");
  EXPECT_EQ(a[0].server_key, k);
  EXPECT_EQ(a[1].host, "[::1]");
  EXPECT_TRUE(a[1].server_key.empty());
  EXPECT_EQ(a[2].server_key, plain);
}

TEST(WorkerKeys, BadKeyOrWordOnAHostsLineNamesTheLine) {
  Files f;
  auto bad_key = f.write("a.txt", "gpu1:5555 key=short\n");
  auto key_refused = parse_hosts_file(bad_key);
  ASSERT_FALSE(key_refused.ok());
  EXPECT_EQ(key_refused.status().message(),
            bad_key + ":1: key= is not a 40-character Z85 CURVE public key");
  auto bad_word = f.write("b.txt", "\ngpu1:5555 weight=2\n");
  auto word_refused = parse_hosts_file(bad_word);
  ASSERT_FALSE(word_refused.ok());
  EXPECT_NE(word_refused.status().message().find(bad_word + ":2: unexpected \"weight=2\""),
            std::string::npos);
}

TEST(WorkerKeys, KnownWorkersGivesOwnThenStarKeyAndHostsLineWins) {
  Files f;
  const std::string k1 = security::generate_key_pair().public_z85;
  const std::string star = security::generate_key_pair().public_z85;
  const std::string own = security::generate_key_pair().public_z85;
  auto known = KnownWorkers::load(
      f.write("known", "# keys\ngpu1:5555 key=" + k1 + "\n* key=" + star + "\n"));
  ASSERT_TRUE(known) << known.status().message();
  std::vector<WorkerAddress> a = {{"gpu1", 5555, ""}, {"gpu2", 5555, ""}, {"gpu3", 5555, own}};
  ASSERT_TRUE(assign_worker_keys(a, &known.value(), true));
  EXPECT_EQ(a[0].server_key, k1);
  EXPECT_EQ(a[1].server_key, star);
  EXPECT_EQ(a[2].server_key, own);
}

TEST(WorkerKeys, AKeyIsNeededExactlyWhenTheCoordinatorHasOne) {
  std::vector<WorkerAddress> missing = {{"gpu1", 5555, ""}};
  Status s = assign_worker_keys(missing, nullptr, true);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("worker gpu1:5555: no CURVE public key"), std::string::npos);
  EXPECT_NE(s.message().find("--known-workers"), std::string::npos);
  std::vector<WorkerAddress> keyed = {{"gpu1", 5555, security::generate_key_pair().public_z85}};
  Status t = assign_worker_keys(keyed, nullptr, false);
  ASSERT_FALSE(t);
  EXPECT_NE(t.message().find("--curve-cert"), std::string::npos);
  std::vector<WorkerAddress> plain = {{"127.0.0.1", 5555, ""}};
  EXPECT_TRUE(assign_worker_keys(plain, nullptr, false));
}

TEST(WorkerKeys, MalformedKnownWorkersLineNamesFileAndLine) {
  Files f;
  auto path = f.write("known", "gpu1:5555\n");
  auto r = KnownWorkers::load(path);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("--known-workers " + path + ":1: expected HOST:PORT key="),
            std::string::npos);
}

}  // namespace
}  // namespace fleet::session
