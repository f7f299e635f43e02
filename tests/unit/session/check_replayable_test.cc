// The gates a trace passes before a replay (LMCache's replay-safety check) and the output
// directory a run writes to: each refusal is a Status naming the file, not an exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fleet/coordinator/session/local_run.h"
#include "fleet/insight/report/outputs.h"
#include "scratch_dir.h"

namespace fleet::session {
namespace {

TEST(CheckReplayable, StorageTracesOfSchemaTwoPass) {
  EXPECT_TRUE(check_replayable("t.lct", "storage", 2).ok());
}

TEST(CheckReplayable, AnotherLevelOrSchemaIsRefusedNamingTheFile) {
  const Status events = check_replayable("t.lct", "events", 2);
  EXPECT_EQ(events.message(),
            "t.lct: level \"events\" is not replayable here (storage only; events traces go to "
            "`lmcache trace replay-events`)");
  EXPECT_EQ(events.code(), ExitCode::kBadInput);
  EXPECT_EQ(check_replayable("t.lct", "storage", 1).message(),
            "t.lct: trace_schema_version 1 is not replay-safe: schema version 1 may have omitted "
            "ObjectKey.cache_salt; replayable versions: 2");
}

TEST(PrepareOutputDir, CreatesParentsOrSaysWhyNot) {
  const test::ScratchDir scratch;
  const std::filesystem::path& root = scratch.path();
  EXPECT_TRUE(report::prepare_output_dir((root / "a" / "b").string()).ok());
  EXPECT_TRUE(std::filesystem::is_directory(root / "a" / "b"));
  std::ofstream(root / "file") << "x";
  const std::string under_a_file = (root / "file" / "out").string();
  const Status s = report::prepare_output_dir(under_a_file);
  EXPECT_EQ(s.message().rfind("--output-dir " + under_a_file + ": cannot create directory", 0), 0u)
      << s.message();
}

}  // namespace
}  // namespace fleet::session
