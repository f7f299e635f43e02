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

// As the replay pushes at speed 0: bursts at one clock reading, mostly in op order, now and
// then one out of order, thousands waiting while the initial run drains. `ahead(0)`, when it
// names an op, names the head.
TEST(L2ReadyQueue, InOrderBurstsAndStragglersPopInTheOrderOfOneHeap) {
  std::mt19937 rng(11);
  std::vector<Entry> initial;
  for (uint32_t i = 0; i < 20000; ++i) initial.emplace_back(0, i);
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> one(initial.begin(),
                                                                     initial.end());
  ReadyQueue q;
  q.set_initial(initial);
  int64_t now = 1;
  uint32_t op = 20000, straggler = 19999;  // stragglers: smaller ops than the burst's
  size_t popped = 0, from_a_run = 0;
  while (!one.empty()) {
    if (rng() % 4 == 0 && op < 60000) {  // a burst of completions at one clock reading
      ++now;
      for (int n = 0; n < 8; ++n) {
        const uint32_t id = rng() % 16 == 0 ? straggler-- : op++;
        one.emplace(now, id);
        q.push(now, id);
      }
    }
    ASSERT_EQ(q.top(), one.top()) << popped;
    if (q.ahead(0) != ReadyQueue::kNoOp) {
      ASSERT_EQ(q.ahead(0), q.top().second);
      ++from_a_run;
    }
    one.pop();
    q.pop();
    ++popped;
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(popped, 50000u);
  EXPECT_GT(from_a_run, popped * 9 / 10);  // the heap took the stragglers only
}

// One batch of completions unblocks its ops at one clock reading in completion order, not op
// order: the batch joins the sorted run as a whole (sorted), so `ahead` still sees every op of
// it, in the order they pop.
TEST(L2ReadyQueue, ABurstPushedOutOfOrderJoinsTheRunSorted) {
  ReadyQueue q;
  q.set_initial({{0, 0}, {0, 1}});
  for (uint32_t op : {9u, 4u, 7u, 5u}) q.push(10, op);
  const std::vector<uint32_t> expected = {0, 1, 4, 5, 7, 9};
  for (uint32_t want : expected) {
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.top().second, want);
    EXPECT_EQ(q.ahead(0), want);  // from a run: the heap was not needed
    q.pop();
  }
  EXPECT_TRUE(q.empty());
  // A later burst below the run's tail: those go to the heap, the order stays one heap's.
  q.push(20, 3);
  q.push(30, 6);
  q.pop();
  q.push(15, 8);
  q.push(25, 2);
  EXPECT_EQ(q.top(), (Entry{15, 8}));
  EXPECT_EQ(q.ahead(0), ReadyQueue::kNoOp);  // the heap's head
  q.pop();
  EXPECT_EQ(q.top(), (Entry{25, 2}));
  q.pop();
  EXPECT_EQ(q.top(), (Entry{30, 6}));
  q.pop();
  EXPECT_TRUE(q.empty());
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
