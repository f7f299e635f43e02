// SHA-256 as lowercase hex: the digest LMCache stores as sm_config_digest.
#pragma once

#include <string>
#include <string_view>

namespace fleet::util {

// On the x86 SHA extensions when the CPU has them (util/sha256_blocks.h), else portable code.
std::string sha256_hex(std::string_view data);
// The portable code alone: what tests compare the default with.
std::string sha256_hex_portable(std::string_view data);

}  // namespace fleet::util
