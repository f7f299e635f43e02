#include "fleet/l2replay/ready_queue.h"

#include <gtest/gtest.h>

#include <random>

namespace fleet::l2replay::detail {
namespace {

using Entry = ReadyQueue::Entry;

// The queue pops in exactly the order one heap of every entry would: smallest (time, op) first,
// whether an entry was ready from the start or pushed while others were being popped.
TEST(L2ReadyQueue, PopsInTheOrderOfOneHeap) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<Entry> initial;
    uint32_t op = 0;
    for (int i = 0; i < 200; ++i) initial.emplace_back(rng() % 50, op++);
    std::shuffle(initial.begin(), initial.end(), rng);
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> one(initial.begin(),
                                                                       initial.end());
    ReadyQueue q;
    q.set_initial(initial);
    while (!one.empty()) {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.top(), one.top());
      const Entry popped = one.top();
      one.pop();
      q.pop();
      if (rng() % 3 == 0) {  // an op unblocked by this one, ready at or after it
        const Entry later{popped.first + static_cast<int64_t>(rng() % 20), op++};
        one.push(later);
        q.push(later.first, later.second);
      }
    }
    EXPECT_TRUE(q.empty());
  }
}

TEST(L2ReadyQueue, EmptyInitialRunUsesTheHeapAlone) {
  ReadyQueue q;
  q.set_initial({});
  EXPECT_TRUE(q.empty());
  q.push(5, 1);
  q.push(3, 2);
  EXPECT_EQ(q.top(), (Entry{3, 2}));
  q.pop();
  EXPECT_EQ(q.top(), (Entry{5, 1}));
  q.pop();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace fleet::l2replay::detail
