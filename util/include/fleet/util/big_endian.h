// Big-endian integers as the `.lct` frames, batches and DONE results carry them.
#pragma once

#include <cstdint>

namespace fleet::util {

inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
inline uint64_t load_be64(const uint8_t* p) {
  return (uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline void store_be32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (24 - 8 * i));
}
inline void store_be64(char* out, uint64_t v) {
  store_be32(out, static_cast<uint32_t>(v >> 32));
  store_be32(out + 4, static_cast<uint32_t>(v));
}

}  // namespace fleet::util
