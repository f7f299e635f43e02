// Equality of a byte range with a compile-time-sized literal, without a libc call: GCC inlines
// __builtin_memcmp only up to 3 bytes, and the decoder's field names and canonical wrappers are
// 4-30 bytes compared millions of times a second. Overlapping word loads cover any length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fleet::util {

namespace fixed_bytes_detail {
template <class Word>
inline Word load(const unsigned char* p) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
}  // namespace fixed_bytes_detail

// a[0..N) == b[0..N); both ranges must be readable for N bytes.
template <size_t N>
inline bool fixed_bytes_equal(const void* a_ptr, const void* b_ptr) {
  using fixed_bytes_detail::load;
  const auto* a = static_cast<const unsigned char*>(a_ptr);
  const auto* b = static_cast<const unsigned char*>(b_ptr);
  if constexpr (N == 0) {
    return true;
  } else if constexpr (N < 4) {
    unsigned diff = 0;
    for (size_t i = 0; i < N; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
    return diff == 0;
  } else if constexpr (N <= 8) {
    return ((load<uint32_t>(a) ^ load<uint32_t>(b)) |
            (load<uint32_t>(a + N - 4) ^ load<uint32_t>(b + N - 4))) == 0;
  } else if constexpr (N <= 16) {
    return ((load<uint64_t>(a) ^ load<uint64_t>(b)) |
            (load<uint64_t>(a + N - 8) ^ load<uint64_t>(b + N - 8))) == 0;
  } else {
    uint64_t diff = 0;
    size_t i = 0;
    for (; i + 8 <= N; i += 8) diff |= load<uint64_t>(a + i) ^ load<uint64_t>(b + i);
    if constexpr (N % 8 != 0) diff |= load<uint64_t>(a + N - 8) ^ load<uint64_t>(b + N - 8);
    return diff == 0;
  }
}

// Equality of two short byte ranges of run-time length without a libc call (model names are
// ~10-40 bytes).
inline bool same_bytes(const char* a_chars, const char* b_chars, size_t n) {
  using fixed_bytes_detail::load;
  const auto* a = reinterpret_cast<const unsigned char*>(a_chars);
  const auto* b = reinterpret_cast<const unsigned char*>(b_chars);
  if (n >= 8) {
    if (n > 32) return std::memcmp(a, b, n) == 0;
    uint64_t diff = load<uint64_t>(a + n - 8) ^ load<uint64_t>(b + n - 8);  // the tail, overlapping
    for (size_t i = 0; i + 8 < n; i += 8) diff |= load<uint64_t>(a + i) ^ load<uint64_t>(b + i);
    return diff == 0;
  }
  if (n >= 4) {
    return ((load<uint32_t>(a) ^ load<uint32_t>(b)) |
            (load<uint32_t>(a + n - 4) ^ load<uint32_t>(b + n - 4))) == 0;
  }
  unsigned diff = 0;
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace fleet::util
