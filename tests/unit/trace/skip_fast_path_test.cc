// MsgpackReader::skip recognises LMCache's canonical ObjectKey by its constant bytes. It must
// accept and refuse exactly what the general loop does: every variant is compared with the
// same key whose wrapper map is written as a map16 (0xde 0x00 0x02), which the fast path
// never matches, so the general loop decides it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/msgpack_reader.h"
#include "fleet/trace/msgpack_writer.h"

namespace fleet::trace {
namespace {

struct KeyParts {
  std::string hash = std::string(16, '\x07');
  bool hash_as_str = false;
  std::string model = "meta-llama/Llama-3.1-8B";
  int64_t kv_rank = 0;
  int64_t group = 0;
  std::string salt;
};

// Two keys in an array, the first as given, the second canonical; `map16` writes both
// wrappers the long way.
std::string keys(const KeyParts& k, bool map16) {
  std::string out;
  MsgpackWriter w(out);
  w.array(2);
  for (int i = 0; i < 2; ++i) {
    const KeyParts c = i == 0 ? k : KeyParts{};
    if (map16) {
      out += std::string("\xde\x00\x02", 3);
      w.str("__t__");
      w.str("ObjectKey");
      w.str("v");
    } else {
      w.wrapper("ObjectKey");
    }
    w.map(5);
    w.str("chunk_hash");
    c.hash_as_str ? w.str(c.hash) : w.bin(c.hash);
    w.str("model_name");
    w.str(c.model);
    w.str("kv_rank");
    w.integer(c.kv_rank);
    w.str("object_group_id");
    w.integer(c.group);
    w.str("cache_salt");
    w.str(c.salt);
  }
  return out;
}

// "ok" when skip consumed the whole value, else the error.
std::string skip_outcome(const std::string& bytes, bool check_utf8) {
  MsgpackReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  try {
    r.skip(check_utf8);
  } catch (const DecodeError& e) {
    return std::string("error: ") + e.message();
  }
  return r.at_end() ? "ok" : "stopped at " + std::to_string(r.offset());
}

std::vector<KeyParts> variants() {
  std::vector<KeyParts> v(1);
  v.emplace_back().model = "\xff\xfe not UTF-8";
  v.emplace_back().model = std::string(40, 'm');           // str8
  v.emplace_back().model = std::string(40, 'm') + "\xc3";  // str8, cut UTF-8
  v.emplace_back().salt = "salt\xed\xa0\x80";              // a surrogate
  v.emplace_back().salt = "tenant-a";
  v.emplace_back().kv_rank = 300;  // uint16: not a fixint
  v.emplace_back().group = -7;     // negative fixint
  v.emplace_back().group = -100;   // int8
  v.emplace_back().hash_as_str = true;
  v.emplace_back().hash = std::string(200, 'h');
  v.emplace_back().hash = "";
  return v;
}

TEST(SkipFastPath, AgreesWithTheGeneralLoopOnEveryVariant) {
  for (bool check : {true, false}) {
    for (const KeyParts& k : variants()) {
      const std::string fast = skip_outcome(keys(k, false), check);
      const std::string general = skip_outcome(keys(k, true), check);
      EXPECT_EQ(fast == "ok", general == "ok")
          << "model=" << k.model << " salt=" << k.salt << ": " << fast << " vs " << general;
    }
  }
  EXPECT_EQ(skip_outcome(keys(KeyParts{}, false), true), "ok");
  EXPECT_NE(skip_outcome(keys(variants()[1], false), true), "ok") << "bad UTF-8 must be refused";
}

TEST(SkipFastPath, EveryTruncationIsRefused) {
  const std::string whole = keys(KeyParts{}, false);
  for (size_t n = 0; n < whole.size(); ++n) {
    EXPECT_NE(skip_outcome(whole.substr(0, n), true), "ok") << "cut at " << n;
  }
}

TEST(SkipFastPath, TheDepthLimitStillHolds) {
  // Keys nested around the depth limit (64): refused at exactly the same depth.
  int refused = 0;
  for (int depth = 56; depth < 66; ++depth) {
    std::string fast, general;
    for (int i = 0; i < depth; ++i) {
      MsgpackWriter(fast).array(1);
      MsgpackWriter(general).array(1);
    }
    fast += keys(KeyParts{}, false);
    general += keys(KeyParts{}, true);
    const bool fast_ok = skip_outcome(fast, true) == "ok";
    EXPECT_EQ(fast_ok, skip_outcome(general, true) == "ok") << "nesting " << depth;
    refused += fast_ok ? 0 : 1;
  }
  EXPECT_GT(refused, 0) << "the limit was never reached: the test proves nothing";
  EXPECT_LT(refused, 10);
}

}  // namespace
}  // namespace fleet::trace
