// Numbers read from JSON or msgpack someone else wrote: a float where an integer belongs, or an
// integer that does not fit, is a clear error, never undefined behaviour (found by the
// engine_config fuzzer in CI: 8.58993e+98 as l1-align-bytes).
#include "fleet/util/json_number.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fleet/engine/engine_config.h"
#include "fleet/engine/engine_config_json.h"

namespace {

using fleet::util::json_integer;
using fleet::util::json_integer_or;
using fleet::util::json_real;
using nlohmann::json;

TEST(JsonNumber, IntegersInRangeAndWholeFloatsAreRead) {
  EXPECT_EQ(json_integer<uint64_t>(json(uint64_t{18446744073709551615u}), "x"),
            18446744073709551615u);
  EXPECT_EQ(json_integer<int64_t>(json(int64_t{-5}), "x"), -5);
  EXPECT_EQ(json_integer<uint32_t>(json(2.0), "x"), 2u);
  EXPECT_EQ(json_integer<int64_t>(json(-9007199254740992.0), "x"), -9007199254740992);
  EXPECT_EQ(json_integer_or<uint64_t>(json::object(), "n", 7, "n"), 7u);
  EXPECT_EQ(json_integer_or<uint64_t>(json{{"n", 3}}, "n", 7, "n"), 3u);
  EXPECT_DOUBLE_EQ(json_real(json(3), "x"), 3.0);
}

TEST(JsonNumber, WhatDoesNotFitIsAnErrorNamingTheField) {
  const json bad[] = {json(8.58993e98),
                      json(-1),
                      json(0.5),
                      json(1e300 * 1e300),
                      json(18446744073709551616.0),
                      json("12"),
                      json(true),
                      json(nullptr),
                      json::array()};
  for (const auto& v : bad) {
    try {
      (void)json_integer<uint64_t>(v, "memory_config.size_in_bytes");
      ADD_FAILURE() << "accepted " << v.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("memory_config.size_in_bytes"), std::string::npos);
    }
  }
  EXPECT_THROW(json_integer<int32_t>(json(int64_t{1} << 40), "x"), std::invalid_argument);
  EXPECT_THROW(json_integer<int64_t>(json(uint64_t{1} << 63), "x"), std::invalid_argument);
  EXPECT_THROW(json_integer<int64_t>(json(9223372036854775808.0), "x"), std::invalid_argument);
  EXPECT_THROW(json_real(json("1"), "x"), std::invalid_argument);
}

TEST(JsonNumber, EngineConfigRefusesOutOfRangeNumbersOnEveryDoor) {
  using namespace fleet::storage;
  for (const char* text :
       {R"({"l1-align-bytes": 8.58993e98})", R"({"l1-size-gb": -1})", R"({"l1-size-gb": 1e300})",
        R"({"l1-init-size-gb": -3})", R"({"eviction-tick-ms": 1e19})",
        R"({"l1_manager_config": {"memory_config": {"size_in_bytes": 8.58993e98}},
            "eviction_config": {"eviction_policy": "LRU"}})"}) {
    const fleet::Result<json> j = parse_engine_config_json(text, "t");
    ASSERT_TRUE(j) << text;
    EXPECT_FALSE(engine_config_from_config_file_json(j.value())) << text;
  }
  EXPECT_EQ(engine_config_from_config_file_json(json{{"l1-align-bytes", 4096.0}})->l1_align_bytes,
            4096u);
}

}  // namespace
