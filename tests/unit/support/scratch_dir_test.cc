// ScratchDir, the directory every test writes its files in: made fresh under $TMPDIR, named
// after the test, removed with everything in it at the end of its scope or of its test (also a
// test that failed by assertion: checked on a real child run of this binary), kept with
// FLEET_KEEP_TMP.
#include "scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace fleet::test {
namespace {

namespace fs = std::filesystem;

// FLEET_KEEP_TMP as the test needs it, restored after (a developer may run with it set).
class KeepTmp {
 public:
  explicit KeepTmp(bool keep) {
    if (const char* v = std::getenv("FLEET_KEEP_TMP")) saved_ = v;
    if (keep) {
      ::setenv("FLEET_KEEP_TMP", "1", 1);
    } else {
      ::unsetenv("FLEET_KEEP_TMP");
    }
  }
  ~KeepTmp() {
    if (saved_) {
      ::setenv("FLEET_KEEP_TMP", saved_->c_str(), 1);
    } else {
      ::unsetenv("FLEET_KEEP_TMP");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(ScratchDir, IsAFreshDirectoryUnderTmpdirNamedAfterTheTest) {
  const KeepTmp keep(false);
  const ScratchDir a;
  const ScratchDir b;
  EXPECT_TRUE(fs::is_directory(a.path()));
  EXPECT_TRUE(fs::equivalent(a.path().parent_path(), fs::temp_directory_path())) << a.path();
  // The test's name cut to 48 characters (a unix socket's path must stay short), mkdtemp's part.
  const std::string name = "ScratchDir.IsAFreshDirectoryUnderTmpdirNamedAfterTheTest";
  EXPECT_EQ(a.path().filename().string().rfind("fleet-" + name.substr(0, 48) + "-", 0), 0u)
      << a.path();
  EXPECT_EQ(a.path().filename().string().size(), 6 + 48 + 1 + 6) << a.path();
  EXPECT_NE(a.path(), b.path());
  EXPECT_TRUE(fs::is_empty(a.path()));
  EXPECT_EQ(a / "t.lct", (a.path() / "t.lct").string());
}

TEST(ScratchDir, RemovesEverythingInItWhenItGoes) {
  const KeepTmp keep(false);
  fs::path where;
  {
    const ScratchDir dir;
    where = dir.path();
    std::ofstream(dir / "t.lct") << "x";
    fs::create_directories(where / "run" / "nested");
    std::ofstream(where / "run" / "nested" / "fleet_summary.json") << "{}";
    ASSERT_TRUE(fs::exists(where / "run" / "nested" / "fleet_summary.json"));
  }
  EXPECT_FALSE(fs::exists(where)) << where;
}

TEST(ScratchDir, FleetKeepTmpKeepsItAndSaysWhere) {
  fs::path where;
  {
    const KeepTmp keep(true);
    const ScratchDir dir;
    where = dir.path();
    std::ofstream(dir / "t.lct") << "x";
    ::testing::internal::CaptureStderr();
  }
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(fs::exists(where / "t.lct")) << where;
  EXPECT_NE(said.find("FLEET_KEEP_TMP: kept " + where.string()), std::string::npos) << said;
  fs::remove_all(where);
}

TEST(ScratchDir, ALabelNamesOneThatOutlivesATest) {
  const KeepTmp keep(false);
  const ScratchDir dir("traces");
  EXPECT_EQ(dir.path().filename().string().rfind("fleet-traces-", 0), 0u) << dir.path();
}

TEST(TestScratchDir, IsOneDirectoryForTheWholeTest) {
  const ScratchDir& first = test_scratch_dir();
  EXPECT_EQ(&first, &test_scratch_dir());
  EXPECT_TRUE(fs::is_directory(first.path()));
  EXPECT_EQ(first.path().filename().string().rfind(
                "fleet-TestScratchDir.IsOneDirectoryForTheWholeTest-", 0),
            0u)
      << first.path();
}

// Run only by the next test, in a child process: the first writes into its test's directory and
// fails by assertion; the second, in the same process, says whether that directory is gone.
std::string failed_tests_dir;  // NOLINT: shared by the two child tests

TEST(TestScratchDirChild, DISABLED_1WritesAndFails) {
  failed_tests_dir = test_scratch_dir().str();
  std::ofstream(test_scratch_dir() / "left.lct") << "x";
  FAIL() << "failing on purpose: its files must go all the same";
}

TEST(TestScratchDirChild, DISABLED_2LooksForThePreviousTestsDirectory) {
  ASSERT_FALSE(failed_tests_dir.empty());
  std::printf("CHILD %s %s\n", failed_tests_dir.c_str(),
              fs::exists(failed_tests_dir) ? "still-there" : "gone");
}

TEST(TestScratchDir, AFailedTestsFilesAreRemovedWhenItEnds) {
  const KeepTmp keep(false);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string cmd = "'" + self +
                          "' --gtest_also_run_disabled_tests"
                          " --gtest_filter='TestScratchDirChild.*' 2>&1";
  FILE* child = ::popen(cmd.c_str(), "r");
  ASSERT_NE(child, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, child)) out += buf;
  const int status = ::pclose(child);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 1) << "the first child test fails: " << out;
  const size_t at = out.find("CHILD ");
  ASSERT_NE(at, std::string::npos) << out;
  std::istringstream line(out.substr(at + 6));
  std::string dir, verdict;
  line >> dir >> verdict;
  EXPECT_TRUE(fs::equivalent(fs::path(dir).parent_path(), fs::temp_directory_path())) << out;
  EXPECT_EQ(verdict, "gone") << dir << " outlived its failed test: " << out;
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

}  // namespace
}  // namespace fleet::test
