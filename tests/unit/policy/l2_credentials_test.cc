// --l2-secret-file against real files in a fresh directory: the format, the mode check, and
// that no error ever quotes the secret.
#include "fleet/worker/l2_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "scratch_dir.h"

namespace fleet::policy {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class L2CredentialsTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text, mode_t mode = 0600) {
    const std::string path = dir_ + "/secret" + std::to_string(n_++);
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  Status Error(const std::string& text) {
    Result<L2Credentials> r = read_l2_secret_file(Write(text));
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? Status() : r.status();
  }

  test::ScratchDir scratch_;
  const std::string dir_ = scratch_.str();
  int n_ = 0;
};

TEST_F(L2CredentialsTest, PasswordOnly) {
  Result<L2Credentials> r = read_l2_secret_file(Write("password=s3cret\n"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->password, "s3cret");
  EXPECT_EQ(r->username, "");
  EXPECT_FALSE(r->empty());
}

TEST_F(L2CredentialsTest, UsernameCommentsBlanksAndWhitespace) {
  Result<L2Credentials> r = read_l2_secret_file(
      Write("# the fleet's Redis user\n\n  username = replay \r\n\tpassword= p=a ss#1  \n# end"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->username, "replay");
  EXPECT_EQ(r->password, "p=a ss#1");  // only the first '=' splits; inner spaces and '#' stay
  EXPECT_TRUE(L2Credentials{}.empty());
}

TEST_F(L2CredentialsTest, OthersReadableFileRefusedNamingTheMode) {
  const std::string path = Write("password=s3cret\n", 0644);
  Result<L2Credentials> r = read_l2_secret_file(path);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("--l2-secret-file " + path));
  EXPECT_THAT(r.status().message(), HasSubstr("0644"));
  EXPECT_THAT(r.status().message(), HasSubstr("chmod 600"));
  EXPECT_THAT(r.status().message(), Not(HasSubstr("s3cret")));
}

TEST_F(L2CredentialsTest, MalformedLineNamesTheLineNotTheSecret) {
  const Status s = Error("username=u\n# comment\nhunter2\n");
  EXPECT_THAT(s.message(), HasSubstr("--l2-secret-file " + dir_));
  EXPECT_THAT(s.message(), HasSubstr("line 3: expected key=value"));
  EXPECT_THAT(s.message(), Not(HasSubstr("hunter2")));
}

TEST_F(L2CredentialsTest, UnknownRepeatedEmptyAndMissingRefused) {
  Status s = Error("password=hunter2\npasswd=hunter2\n");
  EXPECT_THAT(s.message(), HasSubstr("line 2: unknown key"));
  EXPECT_THAT(s.message(), Not(HasSubstr("hunter2")));
  s = Error("hunter=2\n");  // a secret with '=' in it, keyless: its head must not leak either
  EXPECT_THAT(s.message(), HasSubstr("line 1: unknown key"));
  EXPECT_THAT(s.message(), Not(HasSubstr("hunter")));
  s = Error("password=a\npassword=hunter2\n");
  EXPECT_THAT(s.message(), HasSubstr("line 2: password given twice"));
  EXPECT_THAT(s.message(), Not(HasSubstr("hunter2")));
  s = Error("password=\n");
  EXPECT_THAT(s.message(), HasSubstr("line 1: password is empty"));
  s = Error("username=u\n");
  EXPECT_THAT(s.message(), HasSubstr(": no password= line"));
  s = Error("");
  EXPECT_THAT(s.message(), HasSubstr(": no password= line"));
}

TEST_F(L2CredentialsTest, MissingAndOversizedFilesRefused) {
  Result<L2Credentials> r = read_l2_secret_file(dir_ + "/none");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("--l2-secret-file " + dir_ + "/none"));
  r = read_l2_secret_file(Write("password=" + std::string(70 * 1024, 'x') + "\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("bytes, more than the 65536"));
}

TEST_F(L2CredentialsTest, ApplySetsTheAdapterEnvironment) {
  std::optional<std::string> saved[2];
  const char* names[2] = {"LMCACHE_RESP_USERNAME", "LMCACHE_RESP_PASSWORD"};
  for (int i = 0; i < 2; ++i)
    if (const char* v = std::getenv(names[i])) saved[i] = v;
  ::unsetenv(names[0]);
  ::unsetenv(names[1]);

  apply_l2_credentials({"", "pw1"});  // no user: the environment's (here none) is left alone
  EXPECT_EQ(std::getenv(names[0]), nullptr);
  ASSERT_NE(std::getenv(names[1]), nullptr);
  EXPECT_STREQ(std::getenv(names[1]), "pw1");
  apply_l2_credentials({"replay", "pw2"});
  EXPECT_STREQ(std::getenv(names[0]), "replay");
  EXPECT_STREQ(std::getenv(names[1]), "pw2");
  apply_l2_credentials({});  // empty: nothing changes
  EXPECT_STREQ(std::getenv(names[1]), "pw2");

  for (int i = 0; i < 2; ++i) {
    if (saved[i])
      ::setenv(names[i], saved[i]->c_str(), 1);
    else
      ::unsetenv(names[i]);
  }
}

}  // namespace
}  // namespace fleet::policy
