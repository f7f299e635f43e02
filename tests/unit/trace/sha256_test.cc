// Our SHA-256 (it replaced libcrypto's) against FIPS 180-4's examples and every padding edge:
// a tail that fits the length in its block (55 bytes), one that needs a second block (56..63),
// whole blocks (64), and a long message; and the x86 SHA extensions' path (the default where the
// CPU has them) against the portable code on every length up to four blocks and a long message.
#include "fleet/util/sha256.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace fleet::util {
namespace {

TEST(Sha256, MatchesTheStandardsExamplesAndEveryPaddingEdge) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const struct {
    size_t n;
    const char* hex;
  } edges[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
  for (const auto& e : edges) EXPECT_EQ(sha256_hex(std::string(e.n, 'a')), e.hex) << e.n;
}

TEST(Sha256, TheDefaultPathEqualsThePortableCode) {
  EXPECT_EQ(sha256_hex_portable("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::mt19937_64 random(42);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  for (size_t n = 0; n <= 256; ++n) {
    const std::string_view data(bytes.data() + n % 7, n);  // unaligned too
    ASSERT_EQ(sha256_hex(data), sha256_hex_portable(data)) << n;
  }
  EXPECT_EQ(sha256_hex(bytes), sha256_hex_portable(bytes));
}

}  // namespace
}  // namespace fleet::util
