// Sizes as people type and read them. Units are binary, as LMCache's --l1-size-gb counts
// (1 GB = 2^30 bytes): B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB, any case; a bare number is
// bytes; decimals are allowed ("1.5GB").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleet::mrc {

std::optional<uint64_t> parse_byte_size(std::string_view text);
// "512 B", "4.00 KiB", "1.50 GiB": three significant decimals' worth, for tables.
std::string format_byte_size(uint64_t bytes);

}  // namespace fleet::mrc
