// Whole-nanosecond samples as LEB128 deltas (wire/ns_samples.h): exact both ways, refused for
// anything that is not k / 1e6, and bounded when decoding.
#include "fleet/wire/ns_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

std::vector<double> ms_of(const std::vector<uint64_t>& ns) {
  std::vector<double> out;
  for (uint64_t k : ns) out.push_back(static_cast<double>(k) / 1e6);
  return out;
}

TEST(NsSamples, RoundTripIsBitForBitAndSmall) {
  const std::vector<double> v = ms_of({0, 0, 1, 999, 1000, 1001, 123456789, kMaxSampleNs});
  const auto packed = encode_ns_samples(v.data(), v.size());
  ASSERT_TRUE(packed.has_value());
  // 0, 0, 1: a byte each; the largest delta (2^53 - 123456789) takes 8.
  EXPECT_LE(packed->size(), 3 + 2 + 1 + 1 + 4 + 8u);
  std::vector<double> back(v.size());
  decode_ns_samples(*packed, back.data(), v.size(), "q");
  EXPECT_EQ(std::memcmp(back.data(), v.data(), v.size() * sizeof(double)), 0);
  EXPECT_NO_THROW(decode_ns_samples("", nullptr, 0, "q"));
}

TEST(NsSamples, AnythingButWholeNanosecondsStaysRaw) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double odd : {-0.0, -1.0 / 1e6, 0.5e-6, 1.0 / 3.0, nan,
                     static_cast<double>(kMaxSampleNs) / 1e6 * 2, 1e300}) {
    const std::vector<double> v = {odd};
    EXPECT_FALSE(encode_ns_samples(v.data(), 1).has_value()) << odd;
  }
  const std::vector<double> descending = ms_of({5, 4});
  EXPECT_FALSE(encode_ns_samples(descending.data(), 2).has_value());
}

// Decodes `n` samples into a buffer of its own (the test's stand-in for the node's array).
void decode(std::string_view bytes, uint64_t n) {
  std::vector<double> out(n);
  decode_ns_samples(bytes, out.data(), n, "q");
}

TEST(NsSamples, DecodingRefusesBytesThatDoNotHoldTheCount) {
  EXPECT_THROW(decode("\x01\x01", 3), ProtocolError);                        // count > bytes
  EXPECT_THROW(decode("\x01\x81", 2), ProtocolError);                        // cut inside
  EXPECT_THROW(decode("\x01\x01\x01", 2), ProtocolError);                    // bytes after
  EXPECT_THROW(decode(std::string(10, '\xff') + '\x01', 1), ProtocolError);  // > 64 bits
  // 2^53 then +1: past the largest whole ns a double holds exactly.
  std::string past;
  for (uint64_t v : {kMaxSampleNs, uint64_t{1}}) {
    do {
      past.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v);
  }
  EXPECT_THROW(decode(past, 2), ProtocolError);
}

}  // namespace
}  // namespace fleet::wire
