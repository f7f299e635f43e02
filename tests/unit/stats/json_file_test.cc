// Reading JSON someone else wrote: bounded in nesting (never inside strings), and every failure
// names the file.
#include "fleet/util/json_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "scratch_dir.h"

namespace fleet::util {
namespace {

std::string nested(int levels, const std::string& inside = "1") {
  return std::string(static_cast<std::size_t>(levels), '[') + inside +
         std::string(static_cast<std::size_t>(levels), ']');
}

std::string error_of(const std::string& text) {
  const Result<nlohmann::json> j = parse_json_bounded(text, "T");
  return j ? "" : j.status().message();
}

TEST(JsonFile, NestingUpToTheBoundParsesOneMoreIsRefusedByName) {
  EXPECT_EQ(parse_json_bounded(nested(kMaxJsonDepth), "T")->dump(), nested(kMaxJsonDepth));
  EXPECT_EQ(error_of(nested(kMaxJsonDepth + 1)),
            "T: JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  // Objects count like arrays, and an unclosed flood is refused before the parser sees it.
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += R"({"a":)";
  EXPECT_NE(error_of(objects + "1" + std::string(kMaxJsonDepth + 1, '}')).find("nested deeper"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(1'000'000, '[')).find("nested deeper"), std::string::npos);
}

TEST(JsonFile, BracketsInsideStringsDoNotCount) {
  // Escaped quotes and backslashes must not end the string early.
  const std::string inside = R"(["\"[[[[ \\", ")" + std::string(500, '[') + R"(\"{{{"])";
  const nlohmann::json j = parse_json_bounded(inside, "T").value();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0], "\"[[[[ \\");
  EXPECT_EQ(j[1].get<std::string>().size(), 500u + 4u);
  // Past the string, counting resumes.
  EXPECT_NE(error_of(R"(["]]]]", )" + nested(kMaxJsonDepth) + "]").find("nested deeper"),
            std::string::npos);
}

TEST(JsonFile, BadJsonAndUnreadableFilesNameThePath) {
  EXPECT_NE(error_of(R"({"a": )").find("T: not valid JSON"), std::string::npos);
  const fleet::test::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  const std::string file = (dir / "s.json").string();
  std::ofstream(file) << R"({"records": {"total": 3}, "ops": []})";
  EXPECT_EQ(read_json_file(file).value()["records"]["total"], 3);
  auto read_error = [](const std::string& path) -> std::string {
    const Result<nlohmann::json> j = read_json_file(path);
    return j ? "" : j.status().message();
  };
  // A directory or a FIFO is refused before anything opens it (an open of a FIFO would wait
  // for a writer).
  EXPECT_EQ(read_error(dir.string()),
            dir.string() + ": not a regular file (a FIFO, a device or a directory)");
  const std::string fifo = (dir / "fifo.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error(fifo), fifo + ": not a regular file (a FIFO, a device or a directory)");
  EXPECT_EQ(read_error((dir / "missing.json").string()),
            (dir / "missing.json").string() + ": cannot read: No such file or directory");
}

}  // namespace
}  // namespace fleet::util
