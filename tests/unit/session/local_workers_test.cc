// --local N: a worker that cannot start or does not announce its endpoint is an error saying
// which and why, and what was started is stopped (no exception crosses the library's edge).
#include "fleet/coordinator/session/local_workers.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.h"

namespace fleet::session {
namespace {

// Runs `body` with $FLEET_WORKER_BIN set to `bin`, then restores what was there.
template <class Body>
void with_worker_bin(const std::string& bin, Body body) {
  const char* old = std::getenv("FLEET_WORKER_BIN");
  const std::string saved = old ? old : "";
  ::setenv("FLEET_WORKER_BIN", bin.c_str(), 1);
  body();
  if (old) {
    ::setenv("FLEET_WORKER_BIN", saved.c_str(), 1);
  } else {
    ::unsetenv("FLEET_WORKER_BIN");
  }
}

TEST(LocalWorkers, AWorkerThatExitsSilentlyIsAnErrorNamingIt) {
  with_worker_bin("/bin/true", [] {
    const auto workers = LocalWorkers::start(2, {}, nullptr, 5000);
    ASSERT_FALSE(workers.ok());
    EXPECT_EQ(workers.status().message(),
              "--local: worker 0 (/bin/true) exited before announcing its endpoint");
    EXPECT_EQ(workers.status().code(), ExitCode::kBadInput);
  });
}

TEST(LocalWorkers, AWorkerThatNeverAnnouncesIsAnErrorAfterTheTimeout) {
  const test::ScratchDir dir;
  const std::string silent = dir / "silent-worker";
  std::ofstream(silent) << "#!/bin/sh\nexec sleep 30\n";
  std::filesystem::permissions(silent, std::filesystem::perms::owner_all);
  with_worker_bin(silent, [&] {
    const auto workers = LocalWorkers::start(1, {}, nullptr, 200);
    ASSERT_FALSE(workers.ok());
    EXPECT_EQ(workers.status().message(),
              "--local: worker 0 (" + silent + ") did not announce its endpoint in time");
  });
}

}  // namespace
}  // namespace fleet::session
