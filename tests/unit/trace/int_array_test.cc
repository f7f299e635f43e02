// MsgpackReader::read_int_array: the tight loop for the encodings L2 traces use must read every
// encoding exactly as read_int does one value at a time, and refuse what it refuses, at every
// truncation (the fast cases need 5 bytes left; shorter tails take read_int's checks).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/msgpack_reader.h"
#include "fleet/trace/msgpack_writer.h"

namespace fleet::trace {
namespace {

// Every integer width msgpack has, both signs, and the values at each width's edges.
std::vector<int64_t> every_width() {
  return {0,
          1,
          127,
          128,
          255,
          256,
          65535,
          65536,
          262144,
          4294967295,
          4294967296,
          std::numeric_limits<int64_t>::max(),
          -1,
          -32,
          -33,
          -128,
          -129,
          -32768,
          -32769,
          -2147483648LL,
          -2147483649LL,
          std::numeric_limits<int64_t>::min()};
}

std::string array_of(const std::vector<int64_t>& values) {
  std::string out;
  MsgpackWriter w(out);
  w.array(static_cast<uint32_t>(values.size()));
  for (int64_t v : values) w.integer(v);
  return out;
}

// What read_int gives one value at a time, or the error text.
std::string one_by_one(const std::string& bytes, std::vector<int64_t>& out) {
  try {
    MsgpackReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    out.assign(r.read_array_header(), 0);
    for (int64_t& v : out) v = r.read_int();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

std::string as_array(const std::string& bytes, std::vector<int64_t>& out) {
  try {
    MsgpackReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    r.read_int_array(out);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

TEST(IntArray, ReadsEveryEncodingAsReadIntDoes) {
  const std::vector<int64_t> values = every_width();
  std::vector<int64_t> got{9, 9, 9};  // a reused vector: resized, not appended to
  ASSERT_EQ(as_array(array_of(values), got), "");
  EXPECT_EQ(got, values);
  // Orders where a fast case meets the end of the data (the 5-byte window).
  for (size_t tail = 0; tail < values.size(); ++tail) {
    std::vector<int64_t> v(values.begin() + static_cast<long>(tail), values.end());
    std::vector<int64_t> expected, actual;
    ASSERT_EQ(one_by_one(array_of(v), expected), "");
    ASSERT_EQ(as_array(array_of(v), actual), "") << tail;
    EXPECT_EQ(actual, expected) << tail;
  }
}

TEST(IntArray, EveryTruncationAndAWrongTypeIsRefusedAsReadIntRefusesIt) {
  const std::string bytes = array_of({5, 262144, 300, 70000, -7, 1});
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<int64_t> a, b;
    const std::string cut = bytes.substr(0, len);
    EXPECT_EQ(as_array(cut, a), one_by_one(cut, b)) << len;
    EXPECT_FALSE(as_array(cut, a).empty()) << len;
  }
  std::string with_str;
  MsgpackWriter w(with_str);
  w.array(3);
  w.integer(262144);
  w.str("x");
  w.integer(1);
  std::vector<int64_t> a, b;
  EXPECT_EQ(as_array(with_str, a), one_by_one(with_str, b));
  EXPECT_NE(as_array(with_str, a).find("expected integer"), std::string::npos);
}

}  // namespace
}  // namespace fleet::trace
