// Unsigned LEB128: 7 bits per byte, low groups first, the high bit set on every byte but the
// last. The histograms' buckets and DONE's latency samples travel in it (docs/protocol.md § 6).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace fleet::util {

template <class Bytes>
void append_leb128(Bytes& out, uint64_t v) {
  do {
    out.push_back(static_cast<typename Bytes::value_type>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v);
}

// Reads one number at `pos`, advancing it; nullopt when the bytes end inside the number or it
// has more than 64 bits (a 10th byte carrying more than the top bit).
inline std::optional<uint64_t> read_leb128(const uint8_t* data, std::size_t size,
                                           std::size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos == size) return std::nullopt;
    const uint8_t b = data[pos++];
    if (shift == 63 && (b & 0x7e)) return std::nullopt;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  return std::nullopt;
}

}  // namespace fleet::util
