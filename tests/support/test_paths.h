// Where the tests find this build's binaries, the checkout and its fixtures.
//
// Defined in one file that CMake writes into the build tree (test_paths.cc.in): the paths of a
// checkout reach that object only. As compile definitions they reached every test object, so
// a clean clone in another folder (as CI makes) compiled every test again instead of taking it
// from ccache (docs/reliability.md, "CI and its build cache").
#pragma once

#include <string>

namespace fleet::test {

const std::string& bin_dir();          // the build tree (CMAKE_BINARY_DIR)
const std::string& source_dir();       // the checkout (CMAKE_SOURCE_DIR)
const std::string& shared_fixtures();  // tests/fixtures/lmcache: traces from LMCache's encoder

}  // namespace fleet::test
