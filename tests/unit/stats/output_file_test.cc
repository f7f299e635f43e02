// Output files are replaced by a new file rather than truncated (ext4 writes a truncated file's
// new data back at once), but only where that is invisible: a symlink or a hard-linked file the
// user pointed a flag at still receives the data in place.
#include "fleet/util/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "scratch_dir.h"

namespace fleet::util {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_ / name; }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static ino_t inode(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_ino;
  }
  // What a reader that opened the file before the rewrite still sees (the old inode stays
  // alive while it is open, so its number cannot be reused either).
  static std::string read_fd(std::FILE* f) {
    std::string out;
    char buf[256];
    std::rewind(f);
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    return out;
  }
  test::ScratchDir dir_;
};

TEST_F(OutputFile, ARegularFileIsReplacedByANewOneWithExactlyThePieces) {
  const std::string p = path("out.csv");
  ASSERT_TRUE(write_whole_file(p, {"old contents, longer than the new ones"}).ok());
  const ino_t old = inode(p);
  std::FILE* earlier_reader = std::fopen(p.c_str(), "rb");
  ASSERT_NE(earlier_reader, nullptr);
  std::vector<std::string> owned;
  for (int i = 0; i < 2500; ++i) owned.push_back(std::to_string(i) + ",");  // > IOV_MAX pieces
  std::vector<std::string_view> pieces(owned.begin(), owned.end());
  pieces.insert(pieces.begin() + 7, std::string_view());  // an empty piece is skipped
  ASSERT_TRUE(write_whole_file(p, pieces).ok());
  std::string want;
  for (const auto& s : owned) want += s;
  EXPECT_EQ(read(p), want);
  EXPECT_NE(inode(p), old);
  EXPECT_EQ(read_fd(earlier_reader), "old contents, longer than the new ones");
  std::fclose(earlier_reader);
}

TEST_F(OutputFile, ASymlinkStaysAndItsTargetReceivesTheData) {
  const std::string target = path("target.json");
  const std::string link = path("link.json");
  ASSERT_TRUE(write_whole_file(target, {"before"}).ok());
  fs::create_symlink(target, link);
  ASSERT_TRUE(write_whole_file(link, {"after"}).ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(target), "after");
}

TEST_F(OutputFile, AHardLinkedFileIsRewrittenInPlace) {
  const std::string a = path("a.txt");
  const std::string b = path("b.txt");
  ASSERT_TRUE(write_whole_file(a, {"before"}).ok());
  fs::create_hard_link(a, b);
  const ino_t old = inode(a);
  ASSERT_TRUE(write_whole_file(a, {"after, ", "in place"}).ok());
  EXPECT_EQ(inode(a), old);
  EXPECT_EQ(read(b), "after, in place");
}

TEST_F(OutputFile, AtomicWriteLeavesNoTemporaryAndNamesTheFileOnError) {
  const std::string p = path("report.html");
  ASSERT_TRUE(write_file_atomically(p, {"<html>old</html>"}).ok());
  ASSERT_TRUE(write_file_atomically(p, {"<html>", "new", "</html>"}).ok());
  EXPECT_EQ(read(p), "<html>new</html>");
  EXPECT_FALSE(fs::exists(p + ".tmp"));
  const std::string missing = path("no/such/dir/report.html");
  EXPECT_EQ(write_file_atomically(missing, {"x"}).message(),
            "cannot create " + missing + ".tmp: No such file or directory");
}

TEST_F(OutputFile, StreamedFileStartsEmptyOnANewInode) {
  const std::string p = path("timeseries.csv");
  ASSERT_TRUE(write_whole_file(p, {"a run's old rows\n"}).ok());
  const ino_t old = inode(p);
  std::FILE* earlier_reader = std::fopen(p.c_str(), "rb");
  ASSERT_NE(earlier_reader, nullptr);
  std::FILE* f = open_for_rewrite(p);
  ASSERT_NE(f, nullptr);
  std::fputs("header\n", f);
  std::fclose(f);
  EXPECT_EQ(read(p), "header\n");
  EXPECT_NE(inode(p), old);
  EXPECT_EQ(read_fd(earlier_reader), "a run's old rows\n");
  std::fclose(earlier_reader);
}

}  // namespace
}  // namespace fleet::util
