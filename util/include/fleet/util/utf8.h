// UTF-8 validation as Python's decoder applies it (msgspec rejects a `str` that is not valid
// UTF-8): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. The trace
// reader uses it for qualnames, header strings and record keys so a corrupt string makes the
// frame malformed instead of leaking bytes into JSON output.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace fleet::util {

// Out-of-line full check (any input).
bool is_valid_utf8_slow(std::string_view s);

// Inline: almost every string in a trace is short ASCII, checked with a few wide loads.
inline bool is_valid_utf8(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t acc = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      acc |= w;
    }
    uint64_t w;
    std::memcpy(&w, p + n - 8, 8);  // overlapping tail
    acc |= w;
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    acc = a | b;
  } else {
    for (size_t i = 0; i < n; ++i) acc |= static_cast<unsigned char>(p[i]);
  }
  return (acc & 0x8080808080808080ull) == 0 || is_valid_utf8_slow(s);
}

}  // namespace fleet::util
