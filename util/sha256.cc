// SHA-256 after FIPS 180-4 § 6.2. Our own rather than libcrypto's: it digests one config of a
// few hundred bytes per run, and loading OpenSSL (its library, its config file, its error
// tables) cost every process more than the replay of a small trace (docs/benchmarks.md,
// "Start-up: where the fixed cost goes").
#include "fleet/util/sha256.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "sha256_blocks.h"

namespace fleet::util {

namespace {

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(detail::Sha256State& h, const uint8_t* block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = uint32_t{block[4 * i]} << 24 | uint32_t{block[4 * i + 1]} << 16 |
           uint32_t{block[4 * i + 2]} << 8 | uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                        detail::kSha256Round[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

using Blocks = void (*)(detail::Sha256State&, const uint8_t*, size_t);

std::string digest_hex(std::string_view data, Blocks blocks_of) {
  detail::Sha256State h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t left = data.size();
  blocks_of(h, p, left / 64);
  p += left / 64 * 64;
  left %= 64;
  // The tail, 0x80, zeros, and the length in bits (big-endian): one block or two.
  uint8_t tail[128] = {};
  std::memcpy(tail, p, left);
  tail[left] = 0x80;
  const size_t blocks = left + 9 <= 64 ? 1 : 2;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[blocks * 64 - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  blocks_of(h, tail, blocks);
  static const char* kHex = "0123456789abcdef";
  std::string out(64, '0');
  for (int i = 0; i < 32; ++i) {
    const auto byte = static_cast<uint8_t>(h[i / 4] >> (24 - 8 * (i % 4)));
    out[2 * i] = kHex[byte >> 4];
    out[2 * i + 1] = kHex[byte & 15];
  }
  return out;
}

}  // namespace

namespace detail {

void sha256_blocks_portable(Sha256State& h, const uint8_t* data, size_t blocks) {
  for (; blocks > 0; --blocks, data += 64) compress(h, data);
}

}  // namespace detail

std::string sha256_hex(std::string_view data) {
  return digest_hex(data, detail::sha256_x86_available() ? detail::sha256_blocks_x86
                                                         : detail::sha256_blocks_portable);
}

std::string sha256_hex_portable(std::string_view data) {
  return digest_hex(data, detail::sha256_blocks_portable);
}

}  // namespace fleet::util
