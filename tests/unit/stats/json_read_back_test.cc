// json_as_read_back gives exactly what parsing our own text gives, or nothing (then the
// caller parses): checked against the real writer and reader on random documents.
#include "fleet/util/json_read_back.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "fleet/util/json_file.h"
#include "fleet/util/pyjson.h"

namespace fleet::util {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

// Equal values of equal types all the way down (json's == calls 1 and 1u equal).
bool same_typed(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;  // -0.0 is not 0.0
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same_typed(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same_typed(ia.value(), ib.value())) return false;
    return true;
  }
  return a == b;
}

// The reader's value for the writer's text, or nullopt where the reader refuses it.
std::optional<json> parsed(const ordered& v) {
  Result<json> j = parse_json_bounded(py_json_dumps_indent(v, 2), "doc");
  if (!j) return std::nullopt;
  return std::move(j).value();
}

void expect_agrees(const ordered& v) {
  const std::string text = py_json_dumps_indent(v, 2);
  const auto fast = json_as_read_back(v, text.size());
  const auto slow = parsed(v);
  if (fast) {
    ASSERT_TRUE(slow.has_value()) << text;
    EXPECT_TRUE(same_typed(*fast, *slow)) << text << "\nread back: " << fast->dump();
  }
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  ordered value(int depth) {
    switch (depth > 4 ? rng_() % 6 : rng_() % 8) {
      case 0:
        return nullptr;
      case 1:
        return rng_() % 2 == 0;
      case 2:
        return static_cast<int64_t>(rng_()) >> (rng_() % 64);  // either sign, any width
      case 3:
        return rng_() >> (rng_() % 64);  // unsigned
      case 4:
        return a_double();
      case 5:
        return a_string();
      case 6: {
        ordered a = ordered::array();
        for (int i = 0, n = static_cast<int>(rng_() % 5); i < n; ++i) a.push_back(value(depth + 1));
        return a;
      }
      default: {
        ordered o = ordered::object();
        for (int i = 0, n = static_cast<int>(rng_() % 5); i < n; ++i)
          o[a_string()] = value(depth + 1);
        return o;
      }
    }
  }

 private:
  double a_double() {
    switch (rng_() % 4) {
      case 0: {  // any bit pattern, subnormals and -0.0 included; non-finite ones too
        const uint64_t bits = rng_();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
      case 1:
        return std::ldexp(static_cast<double>(rng_() >> 11), static_cast<int>(rng_() % 80) - 60);
      case 2:
        return static_cast<double>(static_cast<int64_t>(rng_() % 100000) - 50000);  // 20.0
      default:
        return static_cast<double>(rng_() % 1000) / 1000.0;
    }
  }
  std::string a_string() {
    static const char* pieces[] = {"a",
                                   "key",
                                   "\"",
                                   "\\",
                                   "\n",
                                   "\x01",
                                   "\x7f",
                                   " ",
                                   "\xc3\xa9",
                                   "\xe2\x82\xac",
                                   "\xf0\x9f\x98\x80",
                                   "\xff",
                                   "\xc3",
                                   "\xed\xa0\x80"};  // the last three: invalid
    std::string s;
    for (int i = 0, n = static_cast<int>(rng_() % 4); i < n; ++i)
      s += pieces[rng_() % std::size(pieces)];
    return s;
  }
  std::mt19937_64 rng_;
};

TEST(JsonReadBack, AgreesWithWritingAndParsingOnRandomDocuments) {
  Generator g(19);
  int fast = 0;
  for (int i = 0; i < 3000; ++i) {
    const ordered v = g.value(0);
    expect_agrees(v);
    if (json_as_read_back(v, 0)) ++fast;
  }
  EXPECT_GT(fast, 1000);  // most documents take the fast path
}

TEST(JsonReadBack, DeclinesWhatTheTextWouldNotCarryBack) {
  EXPECT_FALSE(json_as_read_back(ordered{{"x", std::nan("")}}, 10));
  EXPECT_FALSE(json_as_read_back(ordered::array({1.0, -INFINITY}), 10));
  EXPECT_FALSE(json_as_read_back(ordered{{"name", "caf\xe9"}}, 10));          // Latin-1, not UTF-8
  EXPECT_FALSE(json_as_read_back(ordered{{"caf\xe9", 1}}, 10));               // as a key too
  EXPECT_FALSE(json_as_read_back(ordered{{"x", 1}}, kMaxJsonFileBytes + 1));  // the reader's size
  ordered deep = 1;
  for (int i = 0; i < kMaxJsonDepth + 1; ++i) deep = ordered::array({deep});
  EXPECT_FALSE(json_as_read_back(deep, 10));
  EXPECT_FALSE(parsed(deep).has_value());  // the reader refuses it too
  ordered shallow = 1;
  for (int i = 0; i < kMaxJsonDepth - 1; ++i) shallow = ordered::array({shallow});
  ASSERT_TRUE(json_as_read_back(shallow, 10).has_value());
  expect_agrees(shallow);
}

TEST(JsonReadBack, NumbersComeBackTypedAsTheParserReadsThem) {
  const ordered v = {{"signed", int64_t{5}},
                     {"negative", int64_t{-5}},
                     {"min", std::numeric_limits<int64_t>::min()},
                     {"unsigned", std::numeric_limits<uint64_t>::max()},
                     {"whole", 20.0},
                     {"negative_zero", -0.0},
                     {"tiny", 5e-324}};
  const auto back = json_as_read_back(v, 0);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE((*back)["signed"].is_number_unsigned());
  EXPECT_TRUE((*back)["negative"].is_number_integer() && !(*back)["negative"].is_number_unsigned());
  EXPECT_TRUE((*back)["whole"].is_number_float());
  EXPECT_TRUE(std::signbit((*back)["negative_zero"].get<double>()));
  expect_agrees(v);
}

}  // namespace
}  // namespace fleet::util
