// BLAKE2b (RFC 7693) with a chosen digest length, as Python's hashlib.blake2b(digest_size=n).
// OpenSSL 3.0 only offers the fixed 64-byte variant, and BLAKE2b-8 is not a truncation of it
// (the length is part of the parameter block), so the fault_inject adapter needs this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fleet::storage {

// Unkeyed BLAKE2b digest of `data`, `out_len` bytes (1..64).
std::string blake2b(std::string_view data, size_t out_len);

}  // namespace fleet::storage
