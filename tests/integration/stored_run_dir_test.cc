// Run directories written by an earlier release still load (tests/fixtures/run_dirs/README.md):
// `coordinator report` redraws their page as that release redrew it, and `coordinator compare`
// compares them as it did, byte for byte (the moment and the build aside).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process_util.h"

namespace fleet::test {
namespace {

std::string run_dirs() { return source_dir() + "/tests/fixtures/run_dirs"; }

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// The page up to its inlined scripts (the same for every page: Chart.js, report.js), with the
// moment it was drawn and the build that drew it taken out.
std::string page_head(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"fleet-model\">";
  const size_t model = html.find(open);
  if (model == std::string::npos) return "no model in the page";
  const size_t end = html.find("</script>\n", model);
  std::string head = html.substr(0, end + 10);
  const nlohmann::json m =
      nlohmann::json::parse(html.substr(model + open.size(), end - model - open.size()));
  replace_all(head, m["build_id"].get<std::string>(), "BUILD");
  replace_all(head, m["generated_at"].get<std::string>(), "WHEN");
  return head;
}

int run(const std::vector<std::string>& argv, const std::string& log_dir, const std::string& tag) {
  Process p(argv, log_dir, tag);
  return p.wait_exit(std::chrono::seconds(30)).value_or(-1);
}

TEST(StoredRunDir, ReportRedrawsThePageTheReleaseDrew) {
  ScratchDir dir;
  for (const std::string name : {"embedded", "key2"}) {
    SCOPED_TRACE(name);
    const std::string page = dir / (name + ".html");
    ASSERT_EQ(run({coordinator_bin(), "report", run_dirs() + "/" + name, "-o", page},
                  dir.path().string(), name),
              0);
    const std::string expected = read_file(run_dirs() + "/expected/" + name + ".report-head.html");
    ASSERT_FALSE(expected.empty());
    EXPECT_TRUE(page_head(read_file(page)) == expected)
        << "coordinator report " << name << " draws another page than the release did: " << page;
  }
}

TEST(StoredRunDir, CompareGivesWhatTheReleaseGave) {
  ScratchDir dir;
  const std::string out = dir / "compare.json";
  Process p({coordinator_bin(), "compare", run_dirs() + "/embedded", run_dirs() + "/key2", "--json",
             out, "--no-html"},
            dir.path().string(), "compare");
  ASSERT_EQ(p.wait_exit(std::chrono::seconds(30)), 0) << p.err();
  // The release compared them from inside run_dirs/: its outputs name the directories so.
  std::string json = read_file(out), text = p.out();
  replace_all(json, run_dirs() + "/", "");
  replace_all(text, run_dirs() + "/", "");
  EXPECT_EQ(json, read_file(run_dirs() + "/expected/compare-embedded-key2.json"));
  EXPECT_EQ(text, read_file(run_dirs() + "/expected/compare-embedded-key2.txt"));
}

TEST(StoredRunDir, ARunComparedWithItselfHasNoChange) {
  ScratchDir dir;
  const std::string key2 = run_dirs() + "/key2";
  Process p({coordinator_bin(), "compare", key2, key2, "--output-dir", dir.path().string()},
            dir.path().string(), "self");
  ASSERT_EQ(p.wait_exit(std::chrono::seconds(30)), 0) << p.err();
  EXPECT_NE(p.out().find("0 config field(s) differ"), std::string::npos) << p.out();
  const nlohmann::json c = nlohmann::json::parse(read_file(dir / "compare.json"));
  EXPECT_EQ(c["a"]["nodes"], 2);
  EXPECT_EQ(c["a"]["mode"], "fleet");
  EXPECT_FALSE(c["ops"].empty());
  EXPECT_FALSE(c["cache"].is_null());
}

}  // namespace
}  // namespace fleet::test
