// The thread that populates a growing array's pages ahead of its end (util/ahead_prefaulter.h):
// pages within the distance ahead become resident without the owner touching them, pages beyond
// it stay untouched until the end moves on, and the contents are never changed.
#include "fleet/util/ahead_prefaulter.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace fleet::util {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// How many of [p, p + bytes)'s pages are resident.
size_t resident_pages(const char* p, size_t bytes) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((bytes + page - 1) / page);
  if (::mincore(const_cast<char*>(p), bytes, in.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// Waits up to 5 s for all of [p, p + bytes) to be resident.
bool becomes_resident(const char* p, size_t bytes) {
  const size_t pages = bytes / static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  for (int i = 0; i < 500; ++i) {
    if (resident_pages(p, bytes) == pages) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// kBytes of fresh anonymous memory on plain 4 KiB pages (no THP), so residency is per page and
// exact; unmapped at the end of the test.
constexpr size_t kBytes = 16 * kMiB;
struct FreshPages {
  char* p = static_cast<char*>(
      ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  FreshPages() {
    if (p != MAP_FAILED) ::madvise(p, kBytes, MADV_NOHUGEPAGE);
  }
  ~FreshPages() {
    if (p != MAP_FAILED) ::munmap(p, kBytes);
  }
};

TEST(AheadPrefaulter, PopulatesAheadOfTheEndAndChangesNothing) {
  FreshPages pages;
  char* p = pages.p;
  ASSERT_NE(p, MAP_FAILED);
  std::memcpy(p, "written", 8);  // the owner's first page
  {
    AheadPrefaulter ahead(2, 4 * kMiB);
    ahead.publish(1, p, 4096, kBytes);
    ASSERT_TRUE(becomes_resident(p, 4096 + 4 * kMiB));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(resident_pages(p + 6 * kMiB, 10 * kMiB), 0u);  // beyond the distance: untouched
    ahead.publish(1, p, 12 * kMiB, kBytes);                  // the end moved on
    ASSERT_TRUE(becomes_resident(p + 12 * kMiB, 4 * kMiB));  // up to the capacity, not past it
  }
  EXPECT_STREQ(p, "written");
  EXPECT_EQ(p[4096], 0);
  EXPECT_EQ(p[kBytes - 1], 0);
}

// The thread is woken only once half of the populated distance is used (a wake-up is a system
// call on each side, once per batch before): a small step of the end leaves the next pages
// alone, a step past half the distance populates the whole distance again.
TEST(AheadPrefaulter, WakesOnlyOnceHalfTheDistanceIsUsed) {
  FreshPages pages;
  char* p = pages.p;
  ASSERT_NE(p, MAP_FAILED);
  {
    AheadPrefaulter ahead(1, 4 * kMiB);
    ahead.publish(0, p, 0, kBytes);
    ASSERT_TRUE(becomes_resident(p, 4 * kMiB));
    ahead.publish(0, p, 1 * kMiB, kBytes);  // 3 of 4 MiB still ahead: no wake
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(resident_pages(p + 4 * kMiB, 1 * kMiB), 0u);
    ahead.publish(0, p, 3 * kMiB, kBytes);  // 1 of 4 MiB ahead: populated up to 7 MiB
    ASSERT_TRUE(becomes_resident(p + 4 * kMiB, 3 * kMiB));
  }
}

// The owner's projection of where an array will end caps the distance: pages past it (rounded
// up to a whole huge page) are not populated, so an array's last distance is not zeroed for
// nothing; a projection below the end changes nothing already done.
TEST(AheadPrefaulter, PopulatesNoFurtherThanTheExpectedEnd) {
  FreshPages pages;
  char* p = pages.p;
  ASSERT_NE(p, MAP_FAILED);
  {
    AheadPrefaulter ahead(1, 8 * kMiB);
    ahead.publish(0, p, 0, kBytes, 3 * kMiB);  // expected to end at 3 MiB: populated to 4 MiB
    ASSERT_TRUE(becomes_resident(p, 4 * kMiB));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(resident_pages(p + 4 * kMiB, 4 * kMiB), 0u) << "populated past the expected end";
    ahead.publish(0, p, 5 * kMiB, kBytes, 9 * kMiB);  // a later projection moves it on
    ASSERT_TRUE(becomes_resident(p + 5 * kMiB, 5 * kMiB));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(resident_pages(p + 10 * kMiB, 6 * kMiB), 0u);
  }
}

}  // namespace
}  // namespace fleet::util
