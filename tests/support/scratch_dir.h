// Where a test writes files: a fresh directory under the temp dir ($TMPDIR, else /tmp), made for
// one test or one fixture and removed with everything in it when it goes out of scope, whether
// the test passed or failed by assertion, so the suite leaves nothing behind (scripts/test.sh
// checks; docs/reliability.md, "Tests leave nothing behind"). Its name carries the test's name
// and mkdtemp's random part: tests that ctest runs side by side never share a path.
// FLEET_KEEP_TMP=1 keeps every directory (each kept path is printed) to debug a failure.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace fleet::test {

class ScratchDir {
 public:
  // Named after the running test; `label` names one that outlives a test (a binary's cache).
  ScratchDir() : ScratchDir(test_label()) {}
  explicit ScratchDir(const std::string& label) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / ("fleet-" + label + "-XXXXXX")).string();
    // A test helper's constructor: the exception is reported as the test's failure, with why.
    if (!::mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), tmpl);
    path_ = tmpl;
  }
  ~ScratchDir() {
    const char* keep = std::getenv("FLEET_KEEP_TMP");  // set and not empty, as scripts test it
    if (keep && *keep) {
      std::fprintf(stderr, "FLEET_KEEP_TMP: kept %s\n", path_.c_str());
      return;
    }
    std::error_code ec;  // a test that removed its own files already is fine
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // dir / "name": the path of `name` inside it, as the string most callers pass on.
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  // "Suite.Test" inside a test ('/' of parameterised names made '_'), else "test". Cut to 48
  // characters: a test may bind a unix socket in it (sun_path holds 108).
  static std::string test_label() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return "test";
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    name.resize(std::min<size_t>(name.size(), 48));
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    return name;
  }

  std::filesystem::path path_;
};

// The running test's own ScratchDir, made on first use and removed when the test ends (passed or
// failed), for helpers that turn a file name into a path with no directory in hand:
// test_scratch_dir() / "t.lct". Outside a test (a suite's static setup) the binary's own one,
// removed at exit. Call it from the test's thread.
inline const ScratchDir& test_scratch_dir() {
  struct RemoveAtTestEnd : ::testing::EmptyTestEventListener {
    std::unique_ptr<ScratchDir> dir;
    void OnTestEnd(const ::testing::TestInfo&) override { dir.reset(); }
  };
  static RemoveAtTestEnd* const remover = [] {
    auto* listener = new RemoveAtTestEnd;
    ::testing::UnitTest::GetInstance()->listeners().Append(listener);  // gtest owns it
    return listener;
  }();
  if (!::testing::UnitTest::GetInstance()->current_test_info()) {
    static const ScratchDir binary_dir("binary");
    return binary_dir;
  }
  if (!remover->dir) remover->dir = std::make_unique<ScratchDir>();
  return *remover->dir;
}

}  // namespace fleet::test
