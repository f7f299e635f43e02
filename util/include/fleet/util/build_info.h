// The build's identity ("<version>-<git rev>"), compared in handshakes so a fleet never mixes
// binaries by accident. Defined in one source file so a new commit recompiles only that file.
#pragma once

namespace fleet::util {

const char* build_id();

}  // namespace fleet::util
