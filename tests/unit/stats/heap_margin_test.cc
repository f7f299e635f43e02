// The heap margin (util/heap_margin.h): after a refresh, the memory the thread's next large
// allocation gets is resident before anything touches it; without a refresh it is not; a bounded
// refresh populates that much more of it, from the bottom.
#include "fleet/util/heap_margin.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "fleet/util/malloc_tuning.h"
#include "fleet/util/prefault.h"

// ASan and TSan replace malloc with their own allocators: what this test knows of glibc's (a
// freed block goes back into the top chunk, the next one is carved from its bottom) does not hold.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kOwnMalloc = true;
#elif defined(__has_feature)
constexpr bool kOwnMalloc = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool kOwnMalloc = false;
#endif

namespace fleet::util {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t resident_pages(uintptr_t p, size_t bytes) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = p & ~(page - 1);
  std::vector<unsigned char> in((bytes + page - 1) / page);
  if (::mincore(reinterpret_cast<void*>(begin), bytes, in.data()) != 0) {
    ADD_FAILURE() << "mincore: " << std::strerror(errno);  // a count of 0 must mean something
    return 0;
  }
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// Transparent huge pages for every anonymous mapping: a populate may bring in 2 MiB at once.
bool huge_pages_always() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::stringstream text;
  text << f.rdbuf();
  return text.str().find("[always]") != std::string::npos;
}

TEST(HeapMargin, TheNextAllocationFindsItsPagesPresent) {
  if (kOwnMalloc) GTEST_SKIP() << "a sanitizer's allocator is not glibc's malloc";
  {
    std::vector<char> probe(1 << 16);
    if (!prefault_writable(probe.data(), probe.size()))
      GTEST_SKIP() << "MADV_POPULATE_WRITE is not supported here (Linux < 5.14)";
  }
  tune_malloc_for_streaming();  // blocks below 32 MiB come from the heap and stay mapped
  const size_t pages = 4 * kMiB / static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const auto at = [](size_t bytes) {
    void* block = std::malloc(bytes);
    const auto where = reinterpret_cast<uintptr_t>(block);
    std::free(block);
    return where;
  };
  // Fresh heap: blocks held through the test cover whatever an earlier test (or repeat) left
  // present at the heap's top; above them, the top's pages are untouched (only the allocator's
  // own header). Addresses are kept as numbers: the probes are freed, only where they were counts.
  std::vector<void*> held;
  uintptr_t fresh = at(4 * kMiB);
  while (resident_pages(fresh, 4 * kMiB) > 2 && held.size() < 16) {
    held.push_back(std::malloc(16 * kMiB));
    fresh = at(4 * kMiB);
  }
  ASSERT_NE(fresh, 0u);
  ASSERT_LE(resident_pages(fresh, 4 * kMiB), 2u);  // not yet present (but the headers)

  HeapMargin margin(8 * kMiB);
  ASSERT_TRUE(margin.active());
  // Bounded: 1 MiB a call, from the bottom up; three calls leave at least 3/4 of the next 4 MiB
  // present, and not all of it (other tests' allocations may sit in between: not exactly 3/4).
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(margin.refresh(kMiB));
  const size_t three_quarters = resident_pages(at(4 * kMiB), 4 * kMiB);
  EXPECT_GE(three_quarters, pages * 3 / 4 - 2);
  if (!huge_pages_always()) {
    EXPECT_LT(three_quarters, pages * 15 / 16);
  }
  EXPECT_TRUE(margin.refresh());   // the rest
  EXPECT_TRUE(margin.refresh(0));  // nothing missing: nothing to populate
  // The next block comes from the margin (a small allocation in between may have moved it on by
  // a little), and is present though nothing but the margin touched it.
  const uintptr_t next = at(4 * kMiB);
  ASSERT_GE(next, fresh);
  ASSERT_LE(next, fresh + 4 * kMiB);
  EXPECT_EQ(resident_pages(next, 4 * kMiB), pages);
  for (auto it = held.rbegin(); it != held.rend(); ++it) std::free(*it);
}

// A margin near the size of a block malloc would map on its own (unmapped again at its free)
// would populate nothing the next allocations get: it stays inactive.
TEST(HeapMargin, AMarginMallocWouldMapIsInactive) {
  tune_malloc_for_streaming();
  if (kOwnMalloc) {  // under a sanitizer's allocator every margin is inactive
    EXPECT_FALSE(HeapMargin(kMiB).active());
    return;
  }
  // Up to half the threshold: malloc pads a block, and a padded block past it is mapped.
  HeapMargin too_large(heap_block_limit_bytes() / 2 + 1);
  EXPECT_FALSE(too_large.active());
  EXPECT_FALSE(too_large.refresh());
  EXPECT_FALSE(HeapMargin(0).active());
  EXPECT_TRUE(HeapMargin(heap_block_limit_bytes() / 2).active());
}

}  // namespace
}  // namespace fleet::util
