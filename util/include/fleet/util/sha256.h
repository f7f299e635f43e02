// SHA-256 as lowercase hex: the digest LMCache stores as sm_config_digest.
#pragma once

#include <string>
#include <string_view>

namespace fleet::util {

std::string sha256_hex(std::string_view data);

}  // namespace fleet::util
