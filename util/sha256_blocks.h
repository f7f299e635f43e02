// SHA-256's block function, two ways: the portable one (sha256.cc) and the x86 SHA extensions'
// (sha256_x86.cc), which digests a block in about a tenth of the instructions. A replay's
// plan_sha256 hashes some 7 MB per 100,000 requests (docs/benchmarks.md, "L2 replay").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace fleet::util::detail {

using Sha256State = std::array<uint32_t, 8>;

void sha256_blocks_portable(Sha256State& h, const uint8_t* data, size_t blocks);

// Whether this CPU has the SHA extensions (and SSE4.1): then sha256_blocks_x86 may be called.
bool sha256_x86_available();
void sha256_blocks_x86(Sha256State& h, const uint8_t* data, size_t blocks);

}  // namespace fleet::util::detail
