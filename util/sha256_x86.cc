// SHA-256's block function on the x86 SHA extensions (sha256rnds2, sha256msg1/2): four rounds
// per step, the message schedule in four 128-bit registers. Compiled for those instructions by
// the target attribute alone and called only when the CPU reports them, so the binary still runs
// on any x86-64 (and elsewhere, where this file says "not available").
#include "sha256_blocks.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define FLEET_SHA_X86 1
#endif

namespace fleet::util::detail {

#ifdef FLEET_SHA_X86

namespace {

#define FLEET_SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

// Four rounds with message words w (already in host order): the state is (abef, cdgh).
FLEET_SHA_TARGET inline void four_rounds(__m128i& abef, __m128i& cdgh, __m128i w, int step) {
  __m128i m =
      _mm_add_epi32(w, _mm_load_si128(reinterpret_cast<const __m128i*>(kSha256Round + 4 * step)));
  cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
  abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));
}

}  // namespace

FLEET_SHA_TARGET void sha256_blocks_x86(Sha256State& h, const uint8_t* data, size_t blocks) {
  const __m128i big_endian = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  // (a, b, c, d), (e, f, g, h) -> (a, b, e, f), (c, d, g, h), as sha256rnds2 takes them.
  __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&h[0])), 0xB1);
  __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&h[4])), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, dcba, 0xF0);
  for (; blocks > 0; --blocks, data += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];
    for (int s = 0; s < 4; ++s) {
      w[s] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * s)),
                              big_endian);
      four_rounds(abef, cdgh, w[s], s);
    }
    // W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]), four at a time; w[s % 4] holds
    // the words of step s - 4 until it is replaced by those of step s.
    for (int s = 4; s < 16; ++s) {
      const __m128i older = _mm_sha256msg1_epu32(w[s % 4], w[(s + 1) % 4]);
      const __m128i with_w7 =
          _mm_add_epi32(older, _mm_alignr_epi8(w[(s + 3) % 4], w[(s + 2) % 4], 4));
      w[s % 4] = _mm_sha256msg2_epu32(with_w7, w[(s + 3) % 4]);
      four_rounds(abef, cdgh, w[s % 4], s);
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  // Back to (a, b, c, d), (e, f, g, h).
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&h[0]), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&h[4]), _mm_alignr_epi8(dchg, feba, 8));
}

// From CPUID itself: clang's __builtin_cpu_supports does not know "sha".
bool sha256_x86_available() {
  static const bool available = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const bool ssse3 = c & (1u << 9), sse41 = c & (1u << 19);
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return ssse3 && sse41 && (b & (1u << 29)) != 0;  // leaf 7 EBX bit 29: SHA
  }();
  return available;
}

#else

void sha256_blocks_x86(Sha256State& h, const uint8_t* data, size_t blocks) {
  sha256_blocks_portable(h, data, blocks);
}
bool sha256_x86_available() { return false; }

#endif

}  // namespace fleet::util::detail
