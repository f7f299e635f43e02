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
  const util::HugeVector<double> back = decode_ns_samples(*packed, v.size(), "q");
  ASSERT_EQ(back.size(), v.size());
  EXPECT_EQ(std::memcmp(back.data(), v.data(), v.size() * sizeof(double)), 0);
  EXPECT_TRUE(decode_ns_samples("", 0, "q").empty());
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

TEST(NsSamples, DecodingRefusesBytesThatDoNotHoldTheCount) {
  EXPECT_THROW(decode_ns_samples("\x01\x01", 3, "q"), ProtocolError);        // count > bytes
  EXPECT_THROW(decode_ns_samples("\x01\x81", 2, "q"), ProtocolError);        // cut inside
  EXPECT_THROW(decode_ns_samples("\x01\x01\x01", 2, "q"), ProtocolError);    // bytes after
  EXPECT_THROW(decode_ns_samples(std::string(10, '\xff') + '\x01', 1, "q"),  // > 64 bits
               ProtocolError);
  // 2^53 then +1: past the largest whole ns a double holds exactly.
  std::string past;
  for (uint64_t v : {kMaxSampleNs, uint64_t{1}}) {
    do {
      past.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v);
  }
  EXPECT_THROW(decode_ns_samples(past, 2, "q"), ProtocolError);
}

}  // namespace
}  // namespace fleet::wire
