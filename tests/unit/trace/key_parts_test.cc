// Symbol (interned strings) and ChunkHash (inline bytes with a heap fallback): the value types
// that make an ObjectKey free to copy and compare.
#include <gtest/gtest.h>

#include <string>
#include <unordered_set>
#include <utility>

#include "fleet/trace/types.h"

namespace fleet::trace {
namespace {

TEST(Symbol, EqualStringsShareOneInternedValue) {
  Symbol a("meta-llama/Llama-3.1-8B");
  Symbol b(std::string("meta-llama/") + "Llama-3.1-8B");
  Symbol c("other");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.id(), b.id());
  EXPECT_NE(a, c);
  EXPECT_EQ(a, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(std::string_view(a), "meta-llama/Llama-3.1-8B");
  EXPECT_TRUE(Symbol().empty());
  EXPECT_EQ(Symbol(""), Symbol());
  // Ordering follows the text, not the interning order.
  Symbol z("zz-interned-first");
  Symbol aa("aa-interned-second");
  EXPECT_LT(aa, z);
  EXPECT_GT(z, aa);
}

TEST(Symbol, TryAssignKeepsTheValueWhenUnchanged) {
  Symbol s("model-x");
  const void* id = s.id();
  EXPECT_TRUE(s.try_assign("model-x"));
  EXPECT_EQ(s.id(), id);
  EXPECT_TRUE(s.try_assign("model-y"));
  EXPECT_EQ(s, "model-y");
  EXPECT_TRUE(s.try_assign(""));
  EXPECT_TRUE(s.empty());
}

TEST(ChunkHash, InlineAndHeapBytesBehaveAlike) {
  std::string long_bytes(100, '\0');
  for (size_t i = 0; i < long_bytes.size(); ++i) long_bytes[i] = static_cast<char>(i * 7);
  for (const std::string& bytes :
       {std::string("\0\0\0\x2a", 4), std::string(32, 'x'), long_bytes}) {
    ChunkHash h(bytes);
    EXPECT_EQ(h.size(), bytes.size());
    EXPECT_EQ(h.view(), bytes);
    ChunkHash copy = h;
    EXPECT_EQ(copy, h);
    ChunkHash moved = std::move(copy);
    EXPECT_EQ(moved.view(), bytes);
    ChunkHash assigned("short");
    assigned = h;
    EXPECT_EQ(assigned.view(), bytes);
    assigned.assign(assigned.view().substr(1));  // a view of its own bytes
    EXPECT_EQ(assigned.view(), bytes.substr(1));
    assigned = ChunkHash("tiny");  // heap -> inline
    EXPECT_EQ(assigned, "tiny");
  }
  EXPECT_LT(ChunkHash("a"), ChunkHash("b"));
  EXPECT_LT(ChunkHash("a"), ChunkHash("aa"));
}

TEST(ObjectKey, EqualityHashAndCopiesAcrossBothRepresentations) {
  ObjectKey a{std::string(40, 'h'), "m", 1, 2, "salt"};
  ObjectKey b = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(ObjectKeyHash{}(a), ObjectKeyHash{}(b));
  b.cache_salt = "other";
  EXPECT_NE(a, b);
  std::unordered_set<ObjectKey, ObjectKeyHash> set{a, b, a};
  EXPECT_EQ(set.size(), 2u);
}

}  // namespace
}  // namespace fleet::trace
